package cobra_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/cobra"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

// Layout bits of FuzzCobra: files besides T1.log and T2.log.
const (
	layoutEmpty  = 1 << iota // an empty T3.log
	layoutOther              // a file that is not a log
	layoutDir                // a directory named T4.log
	layoutBlank              // a blank T5.log
	layoutLink               // T6.log, a symbolic link to T1.log
	layoutSubdir             // a subdirectory holding a T7.log
	layoutNoLogs             // no T1.log and T2.log
	layoutFIFO               // a FIFO named T8.log
)

// FuzzCobra reads Cobra directories of two logs, a and b, and odd files
// chosen by layout.
func FuzzCobra(f *testing.F) {
	t1 := new(formattest.CobraLog).S(0x10).W(100, 7, 0xabc).R(cobra.CobraInit, cobra.CobraInit, 8, 0).C(0x10).
		S(0x11).R(0x10, 100, 7, 0xabc).R(cobra.CobraNull, cobra.CobraNull, 9, 0).B
	t2 := new(formattest.CobraLog).S(1).C(1).S(2).B
	f.Add(t1, t2, uint8(0))
	f.Add(t1, []byte{}, uint8(layoutEmpty|layoutOther|layoutBlank|layoutSubdir))
	f.Add(t1, t2, uint8(layoutDir))
	f.Add(t1, t2, uint8(layoutLink))
	f.Add([]byte(" \n"), []byte{}, uint8(layoutNoLogs))
	f.Add([]byte{}, t2, uint8(layoutFIFO))
	// Reads of writes in the other log, with and without the value
	// written; keys whose values are ambiguous.
	f.Add(new(formattest.CobraLog).S(0x10).R(0x20, 200, 1, 11).W(100, 2, 22).C(0x10).B,
		new(formattest.CobraLog).S(0x20).W(200, 1, 11).C(0x20).S(0x21).R(0x10, 100, 2, 23).B, uint8(0))
	f.Add(new(formattest.CobraLog).S(1).W(101, 1, 7).W(102, 1, 7).W(103, 2, 0).R(1, 101, 1, 7).R(7, 777, 5, 1).C(1).B,
		new(formattest.CobraLog).S(2).R(cobra.CobraInit, cobra.CobraInit, 3, 5).R(1, 103, 2, 0).S(3).B, uint8(0))
	if data, err := os.ReadFile(filepath.Join(formattest.CorpusDir, "polysi", "cobra-tpcc", "T10.log")); err == nil {
		f.Add(data[:min(len(data), 2048)], t2, uint8(0))
	}
	f.Fuzz(func(t *testing.T, a, b []byte, layout uint8) {
		dir := t.TempDir()
		write := func(name string, data []byte) {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		logs := 0
		if layout&layoutNoLogs == 0 {
			write("T1.log", a)
			write("T2.log", b)
			logs += 2
		}
		if layout&layoutEmpty != 0 {
			write("T3.log", nil)
			logs++
		}
		if layout&layoutOther != 0 {
			write("notes.txt", a)
		}
		bad := false // a log is not a regular file
		if layout&layoutDir != 0 {
			if err := os.Mkdir(filepath.Join(dir, "T4.log"), 0o755); err != nil {
				t.Fatal(err)
			}
			bad = true
		}
		if layout&layoutBlank != 0 {
			write("T5.log", []byte(" \r\n\t"))
			logs++
		}
		if layout&layoutLink != 0 {
			if err := os.Symlink(filepath.Join(dir, "T1.log"), filepath.Join(dir, "T6.log")); err != nil {
				t.Skip(err)
			}
			logs++ // a dangling link without T1.log: an error
		}
		if layout&layoutSubdir != 0 {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "sub", "T7.log"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if layout&layoutFIFO != 0 {
			if err := syscall.Mkfifo(filepath.Join(dir, "T8.log"), 0o600); err != nil {
				t.Skip(err)
			}
			bad = true
		}
		if bad {
			logs = -1
		}
		h, info, err := format.ReadFileInfo(dir, format.Cobra)
		h2, info2, err2 := format.ReadFileInfo(dir, format.Auto)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("cobra: %v; auto: %v", err, err2)
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) && layout&(layoutLink|layoutNoLogs) == layoutLink|layoutNoLogs {
				return // T6.log is a dangling link: the file cannot be opened
			}
			e := formattest.CheckError(t, err)
			switch {
			case logs == 0 && !strings.Contains(e.Msg, "no Cobra T*.log files"):
				t.Fatalf("no logs: %v", err)
			case bad && !strings.Contains(e.Msg, "not a regular file"):
				t.Fatalf("a log that is not a regular file: %v", err)
			}
			return
		}
		if logs <= 0 {
			t.Fatalf("read %d transactions, want an error", len(h.Txns))
		}
		formattest.CheckConsistent(t, h)
		if info.Format != format.Cobra || info2.Format != format.Cobra || !formattest.SameHistory(h, h2) {
			t.Fatalf("cobra and auto differ: %s, %s", info.Format, info2.Format)
		}
		if len(h.Sessions) != logs {
			t.Fatalf("%d sessions, want %d", len(h.Sessions), logs)
		}
		// Every Cobra history converts to JSONL and back.
		var out bytes.Buffer
		if err := format.Write(&out, h, format.JSONL); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if _, err := format.Read(&out, "cobra.jsonl", format.JSONL); err != nil {
			t.Fatalf("reading back: %v", err)
		}
		// The first log alone reads as a history of one session.
		if _, err := formattest.ReadCobraBytes(a); err != nil {
			formattest.CheckError(t, err)
		}
	})
}
