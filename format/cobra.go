package format

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/progress"
)

// A Cobra history is a directory with one T<n>.log file per session. Each
// file is a sequence of records, a one-byte tag followed by big-endian u64s:
//
//	'S' txnId                         transaction start
//	'W' writeId key val               write
//	'R' writeTxnId writeId key val    read; names the write it observed
//	'C' txnId                         commit
//
// Write ids are unique, so the reader uses them as the values of writes and
// reads: reads-from is then exact. Reads of cobraInit or cobraNull read the
// initial value 0.

const (
	cobraInit = 0xbebeebee
	cobraNull = 0xdeadbeef
)

// readCobra reads a Cobra log directory, or a single log file as a
// one-session history. The logs of a directory must be regular files.
func readCobra(ctx context.Context, path string) (*history.History, *Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, stopError(path, 0, context.Cause(ctx))
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	if st.IsDir() {
		logs, err := cobraLogs(path)
		if err != nil {
			return nil, nil, err
		}
		if len(logs) == 0 {
			return nil, nil, fileError(path, "no Cobra T*.log files in the directory")
		}
		for _, l := range logs {
			files = append(files, filepath.Join(path, l))
		}
	} else {
		files = []string{path}
	}
	// Check every log first, so that a bad one is reported before any
	// reading, and the meter knows the total size.
	inDir := st.IsDir()
	var total int64
	for _, name := range files {
		fst, err := os.Stat(name)
		if err != nil {
			return nil, nil, err
		}
		if err := checkLog(name, fst.Mode(), inDir); err != nil {
			return nil, nil, err
		}
		if fst.Mode().IsRegular() {
			total += fst.Size()
		}
	}
	m := progress.Start(ctx, "parse", total, "bytes")
	b := newCobraBuilder()
	cr := &cobraReader{b: b, ids: make(map[uint64]cobraPlace)}
	var br *bufio.Reader
	for _, name := range files {
		if err := readLogFile(cr, m, &br, name, inDir, total); err != nil {
			return nil, nil, err
		}
	}
	return b.History(), &Info{Format: Cobra}, nil
}

// readLogFile reads the log file name, with *br (reset to it, or made
// for an input of total bytes) and m.
func readLogFile(cr *cobraReader, m *progress.Meter, br **bufio.Reader, name string, inDir bool, total int64) error {
	f, err := openLog(name, inDir)
	if err != nil {
		return err
	}
	defer f.Close()
	sr := newStopReader(m, f)
	if *br == nil {
		*br = bufio.NewReaderSize(sr, bufSize(total))
	} else {
		(*br).Reset(sr)
	}
	b := cr.b
	if err := cr.readLog(*br, name, b.AddFile(name), b.Session(cobraSession(name))); err != nil {
		return stopped(name, sr, err)
	}
	if err := m.Err(); err != nil {
		return stopError(name, sr.n, err)
	}
	return nil
}

// checkLog checks the mode of a Cobra log: unless it is the only input,
// given by the user, it must be a regular file.
func checkLog(name string, mode os.FileMode, inDir bool) error {
	if mode.IsRegular() || !inDir && !mode.IsDir() {
		return nil
	}
	return fileError(name, "not a regular file (%s): a Cobra log must be one", fileKind(mode))
}

// openLog opens a Cobra log. The log of a directory must be a regular
// file (see checkLog); it is opened without blocking, so that a FIFO put
// in its place since it was checked does not make the open wait for a
// writer.
func openLog(name string, inDir bool) (*os.File, error) {
	flag := os.O_RDONLY
	if inDir {
		flag |= syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(name, flag, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := checkLog(name, st.Mode(), inDir); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// fileKind names the type of a file that is not regular.
func fileKind(mode os.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&os.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&os.ModeCharDevice != 0:
		return "a character device"
	case mode&os.ModeDevice != 0:
		return "a device"
	case mode&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + mode.String()
}

// newCobraBuilder returns a Builder for a Cobra history.
func newCobraBuilder() *history.Builder {
	b := history.NewBuilder(0)
	b.SetPosIsOffset(true)
	return b
}

// cobraSession returns the session name of the log at path: its base name
// without ".log".
func cobraSession(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".log")
}

// cobraLogs returns the names of the T*.log files in dir, sorted by the
// number after the T (names without a number come last, by name).
func cobraLogs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var logs []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "T") || !strings.HasSuffix(name, ".log") {
			continue
		}
		logs = append(logs, name)
	}
	num := func(name string) (uint64, bool) {
		n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, "T"), ".log"), 10, 64)
		return n, err == nil
	}
	sort.Slice(logs, func(i, j int) bool {
		a, aok := num(logs[i])
		b, bok := num(logs[j])
		switch {
		case aok && bok && a != b:
			return a < b
		case aok != bok:
			return aok
		}
		return logs[i] < logs[j]
	})
	return logs, nil
}

// cobraReader reads the logs of one history.
type cobraReader struct {
	b    *history.Builder
	ops  []history.Op
	nops int
	// ids maps the id of every transaction read so far to where it starts.
	ids map[uint64]cobraPlace
}

// cobraPlace is where a transaction starts.
type cobraPlace struct {
	file string
	off  int64
}

func hexID(id uint64) string { return "0x" + strconv.FormatUint(id, 16) }

// readLog reads the log of one session.
func (r *cobraReader) readLog(br *bufio.Reader, name string, file, sess int32) error {
	if blank, err := skipBlank(br, name, "a Cobra log"); err != nil {
		return err
	} else if blank {
		return nil
	}
	inTxn := false
	var txnID uint64
	var txnPos int64
	add := func(status history.Status) {
		r.b.AddTxn(history.Txn{
			ID:      hexID(txnID),
			Session: sess,
			Status:  status,
			Start:   history.NoTime,
			End:     history.NoTime,
			File:    file,
			Pos:     txnPos,
		}, r.ops)
	}
	var f [4]uint64
	for off := int64(0); ; {
		rec, err := br.Peek(1 + 8*4)
		if len(rec) == 0 {
			if err == io.EOF {
				break
			}
			return &Error{File: name, Offset: off, Msg: "read error: " + err.Error(), Err: err}
		}
		tag := rec[0]
		var n int
		switch tag {
		case 'S', 'C':
			n = 1
		case 'W':
			n = 3
		case 'R':
			n = 4
		default:
			return offsetError(name, off, "unknown record type %q (want 'S', 'W', 'R' or 'C')", tag)
		}
		if len(rec)-1 < 8*n {
			if err != nil && err != io.EOF {
				return &Error{File: name, Offset: off + int64(len(rec)), Msg: "read error: " + err.Error(), Err: err}
			}
			return offsetError(name, off, "unexpected end of file in a %c record: it needs %d bytes, the file ends after %d", tag, 1+8*n, len(rec))
		}
		for i := range n {
			f[i] = binary.BigEndian.Uint64(rec[1+8*i:])
		}
		if tag != 'S' && !inTxn {
			return offsetError(name, off, "%c record outside a transaction (no 'S' record before it)", tag)
		}
		switch tag {
		case 'S':
			if inTxn {
				return offsetError(name, off, "transaction %s starts before transaction %s (at byte offset %d) commits", hexID(f[0]), hexID(txnID), txnPos)
			}
			if p, ok := r.ids[f[0]]; ok {
				return offsetError(name, off, "duplicate transaction id %s: the transaction at %s: byte offset %d has it too", hexID(f[0]), p.file, p.off)
			}
			r.ids[f[0]] = cobraPlace{name, off}
			inTxn, txnID, txnPos = true, f[0], off
			r.ops = r.ops[:0]
		case 'W':
			switch id := f[0]; id {
			case 0, cobraInit, cobraNull, 1 << 63:
				return offsetError(name, off, "write id %s is reserved (it would be ambiguous)", hexID(id))
			}
			if err := r.addOp(name, off, history.Op{Kind: history.Write, Key: uintKey(r.b, f[1]), Value: uintValue(r.b, f[0])}); err != nil {
				return err
			}
		case 'R':
			wtxn, wid := f[0], f[1]
			var v history.Value
			switch {
			case wid == cobraInit || wid == cobraNull || wtxn == cobraInit || wtxn == cobraNull:
				if wtxn != wid {
					return offsetError(name, off, "read of write %s of transaction %s: INIT (0xbebeebee) and NULL (0xdeadbeef) must be in both ids", hexID(wid), hexID(wtxn))
				}
			case wid == 0 || wid == 1<<63:
				return offsetError(name, off, "read of write id %s, which is reserved (it would be ambiguous)", hexID(wid))
			default:
				v = uintValue(r.b, wid)
			}
			if err := r.addOp(name, off, history.Op{Kind: history.Read, Key: uintKey(r.b, f[2]), Value: v}); err != nil {
				return err
			}
		case 'C':
			if f[0] != txnID {
				return offsetError(name, off, "commit of transaction %s inside transaction %s (at byte offset %d)", hexID(f[0]), hexID(txnID), txnPos)
			}
			add(history.Committed)
			inTxn = false
		}
		br.Discard(1 + 8*n)
		off += int64(1 + 8*n)
	}
	if inTxn {
		add(history.Unknown)
	}
	return nil
}

func (r *cobraReader) addOp(name string, off int64, op history.Op) error {
	if r.nops == maxOps {
		return offsetError(name, off, "too many operations (the limit is %d)", maxOps)
	}
	r.nops++
	r.ops = append(r.ops, op)
	return nil
}

// looksLikeCobra reports whether head starts with a Cobra 'S' record
// followed by another record or the end of the input.
func looksLikeCobra(head []byte) bool {
	if len(head) < 9 || head[0] != 'S' {
		return false
	}
	if len(head) == 9 {
		return true
	}
	switch head[9] {
	case 'S', 'W', 'R', 'C':
		return true
	}
	return false
}
