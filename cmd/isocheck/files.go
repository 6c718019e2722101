package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// The files isocheck writes: reports, pictures, histories, plans,
// profiles. A write that fails must not cost the user what was there, and
// isocheck must never remove or truncate a file it did not create:
//
//   - a regular file, or a path where there is nothing yet, is written to
//     a temporary file beside it, which replaces it only once complete; a
//     failed write removes the temporary file and leaves the file as it
//     was;
//   - anything else that exists (a device such as /dev/null or /dev/full,
//     a FIFO, /dev/stdout) is opened write-only and written in place, and
//     never removed. Write-only, so that a FIFO whose reader goes away
//     gives an error (EPIPE) instead of a write that waits for ever.

// An outputFile is a file opened for writing by openOutput. Commit
// finishes it; Abort gives it up.
type outputFile struct {
	*os.File
	// target is the file Commit renames the temporary file to: the path
	// asked for, its symbolic links followed.
	target string
	// temp says File is a temporary file beside target; created, that
	// isocheck created File (temp or not), so that Abort may remove it.
	temp, created bool
	// regular says File is a regular file, which can be read back.
	regular bool
	done    bool
}

// openOutput opens path for writing as the rules above say. With inPlace,
// a path where there is nothing yet is created there and written in place
// rather than through a temporary file: a history that a run writes as it
// goes is then there, in part, even if isocheck is killed.
func openOutput(path string, inPlace bool) (*outputFile, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && inPlace:
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return nil, err
		}
		return &outputFile{File: f, target: path, created: true, regular: true}, nil
	case errors.Is(err, fs.ErrNotExist):
		return createTemp(path, path, 0o666, false)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("is a directory")}
	case !fi.Mode().IsRegular() || systemPath(path):
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &outputFile{File: f, target: path}, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	return createTemp(path, target, fi.Mode().Perm(), true)
}

// systemPath reports whether path is in a directory of the system's own
// files, such as /dev/stdout, which may stand for a regular file that
// isocheck must write in place (another process holds it open).
func systemPath(path string) bool {
	if runtime.GOOS == "windows" {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")
}

// createTemp creates a temporary file beside target, the file at path, of
// mode perm less the umask, or, with keepMode, of mode perm exactly: that
// of the file it replaces.
func createTemp(path, target string, perm fs.FileMode, keepMode bool) (*outputFile, error) {
	dir, base := filepath.Split(target)
	for range 1000 {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			// Name the file asked for, not the temporary one.
			if pe, ok := errors.AsType[*fs.PathError](err); ok {
				err = pe.Err
			}
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		o := &outputFile{File: f, target: target, temp: true, created: true, regular: true}
		if keepMode {
			if err := f.Chmod(perm); err != nil {
				o.Abort()
				return nil, err
			}
		}
		return o, nil
	}
	return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("no free name for a temporary file beside it")}
}

// Commit closes the file and puts it in place. When that fails, the
// temporary file is removed, and the file it was to replace stays as it
// was. Commit and Abort after either do nothing.
func (o *outputFile) Commit() error {
	if o.done {
		return nil
	}
	o.done = true
	var err error
	if o.temp {
		err = o.File.Sync()
	}
	if cerr := o.File.Close(); err == nil {
		err = cerr
	}
	if o.temp && err == nil {
		err = os.Rename(o.File.Name(), o.target)
	}
	if o.temp && err != nil {
		os.Remove(o.File.Name())
	}
	return err
}

// Abort closes the file and removes it if isocheck created it; a file that
// was there before, a device or a FIFO, stays.
func (o *outputFile) Abort() {
	if o.done {
		return
	}
	o.done = true
	o.File.Close()
	if o.created {
		os.Remove(o.File.Name())
	}
}

// writeFile writes path with write; "-" is stdout, unless stdout is nil
// (then "-" is a file like any other). A failed write leaves what was at
// path as it was (see openOutput).
func writeFile(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" && stdout != nil {
		if err := write(stdout); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	f, err := openOutput(path, false)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
