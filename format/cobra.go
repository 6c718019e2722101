package format

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/history"
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
// one-session history.
func readCobra(path string) (*history.History, *Info, error) {
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
	b := history.NewBuilder(0)
	b.SetPosIsOffset(true)
	cr := &cobraReader{b: b}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, err
		}
		file := b.AddFile(name)
		sess := b.Session(strings.TrimSuffix(filepath.Base(name), ".log"))
		if err := cr.readLog(data, name, file, sess); err != nil {
			return nil, nil, err
		}
	}
	return b.History(), &Info{Format: Cobra}, nil
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
		if !strings.HasPrefix(name, "T") || !strings.HasSuffix(name, ".log") || e.IsDir() {
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
}

func hexID(id uint64) string { return "0x" + strconv.FormatUint(id, 16) }

// readLog reads the log of one session.
func (r *cobraReader) readLog(data []byte, name string, file, sess int32) error {
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
	for off := 0; off < len(data); {
		tag := data[off]
		var n int
		switch tag {
		case 'S', 'C':
			n = 1
		case 'W':
			n = 3
		case 'R':
			n = 4
		default:
			return offsetError(name, int64(off), "unknown record type %q (want 'S', 'W', 'R' or 'C')", tag)
		}
		if len(data)-off-1 < 8*n {
			return offsetError(name, int64(off), "unexpected end of file in a %c record: it needs %d bytes, the file ends after %d", tag, 1+8*n, len(data)-off)
		}
		for i := range n {
			f[i] = binary.BigEndian.Uint64(data[off+1+8*i:])
		}
		if tag != 'S' && !inTxn {
			return offsetError(name, int64(off), "%c record outside a transaction (no 'S' record before it)", tag)
		}
		switch tag {
		case 'S':
			if inTxn {
				return offsetError(name, int64(off), "transaction %s starts before transaction %s (at byte offset %d) commits", hexID(f[0]), hexID(txnID), txnPos)
			}
			inTxn, txnID, txnPos = true, f[0], int64(off)
			r.ops = r.ops[:0]
		case 'W':
			switch id := f[0]; id {
			case 0, cobraInit, cobraNull, 1 << 63:
				return offsetError(name, int64(off), "write id %s is reserved (it would be ambiguous)", hexID(id))
			}
			if err := r.addOp(name, off, history.Op{Kind: history.Write, Key: r.b.IntKey(int64(f[1])), Value: history.Value(int64(f[0]))}); err != nil {
				return err
			}
		case 'R':
			wtxn, wid := f[0], f[1]
			v := history.Value(int64(wid))
			switch {
			case wid == cobraInit || wid == cobraNull || wtxn == cobraInit || wtxn == cobraNull:
				if wtxn != wid {
					return offsetError(name, int64(off), "read of write %s of transaction %s: INIT (0xbebeebee) and NULL (0xdeadbeef) must be in both ids", hexID(wid), hexID(wtxn))
				}
				v = 0
			case wid == 0 || wid == 1<<63:
				return offsetError(name, int64(off), "read of write id %s, which is reserved (it would be ambiguous)", hexID(wid))
			}
			if err := r.addOp(name, off, history.Op{Kind: history.Read, Key: r.b.IntKey(int64(f[2])), Value: v}); err != nil {
				return err
			}
		case 'C':
			if f[0] != txnID {
				return offsetError(name, int64(off), "commit of transaction %s inside transaction %s (at byte offset %d)", hexID(f[0]), hexID(txnID), txnPos)
			}
			add(history.Committed)
			inTxn = false
		}
		off += 1 + 8*n
	}
	if inTxn {
		add(history.Unknown)
	}
	return nil
}

func (r *cobraReader) addOp(name string, off int, op history.Op) error {
	if r.nops == maxOps {
		return offsetError(name, int64(off), "too many operations (the limit is %d)", maxOps)
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
