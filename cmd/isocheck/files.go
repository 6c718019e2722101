package main

import (
	"fmt"
	"io"
	"os"
)

// createOutput opens path for writing; "-" is standard output, which
// closing leaves open.
func createOutput(path string, stdout io.Writer) (io.WriteCloser, error) {
	if path == "-" {
		return nopCloser{stdout}, nil
	}
	return os.Create(path)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// writeFile writes path ("-": stdout) with write, removing a file on error.
func writeFile(path string, stdout io.Writer, write func(io.Writer) error) error {
	f, err := createOutput(path, stdout)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		if path != "-" {
			os.Remove(path)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
