package cobra

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

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// A Cobra history is a directory with one T<n>.log file per session. Each
// file is a sequence of records, a one-byte tag followed by big-endian u64s:
//
//	'S' txnId                         transaction start
//	'W' writeId key val               write
//	'R' writeTxnId writeId key val    read; names the write it observed
//	'C' txnId                         commit
//
// Writes and reads get the values of the file (val), so that reports show
// the user's values; reads-from stays exact because the reader checks that
// a read's value is the value its named write wrote (and that the write
// is of its key and in the transaction it names): a read that disagrees is
// an *Error at its byte offset. Two writes of one value to one key would
// make reads-from ambiguous, and a write of 0 would look like the initial
// state: on such a key (and on a key read from a write no log holds, with a
// value that a write of the key wrote, or 0) every write and read gets the
// write id as its value instead, as in Cobra's own checker. A write id
// that several writes share says the log names no writers (the histories
// of VeriStrong, whose values repeat, give all writes one id and name it
// in every read): on the keys written under it, values stand for
// themselves, a read's writer is any write of its value, and the checker
// chooses it. Reads of
// cobraInit or cobraNull read the initial value 0, whatever their val
// (Cobra's initial values differ by key; isocheck's are all 0), but the
// reads of the initial state of one key must agree on val.

const (
	cobraInit = 0xbebeebee
	cobraNull = 0xdeadbeef
)

// Read reads a Cobra log directory, or a single log file as a
// one-session history. The logs of a directory must be regular files.
func Read(ctx context.Context, path string) (*history.History, error) {
	if err := ctx.Err(); err != nil {
		return nil, scan.StopError(path, 0, context.Cause(ctx))
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var files []string
	if st.IsDir() {
		logs, err := Logs(path)
		if err != nil {
			return nil, err
		}
		if len(logs) == 0 {
			return nil, scan.FileError(path, "no Cobra T*.log files in the directory")
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
			return nil, err
		}
		if err := checkLog(name, fst.Mode(), inDir); err != nil {
			return nil, err
		}
		if fst.Mode().IsRegular() {
			total += fst.Size()
		}
	}
	m := progress.Start(ctx, "parse", total, "bytes")
	b := newCobraBuilder()
	cr := &cobraReader{b: b, ids: make(map[uint64]cobraPlace), deferred: true}
	// Operations take 25 (writes) or 33 (reads) bytes, and transactions 18
	// more: room for that many, or a bit more, costs little.
	n := int(min(total/28, scan.MaxOps))
	cr.ops = make([]history.Op, 0, n)
	cr.vals = make([]uint64, 0, n)
	cr.wids = make([]uint64, 0, n)
	cr.reads = make([]cobraRead, 0, n/2)
	cr.writes = make(map[uint64]cobraWrite, n/8)
	var br *bufio.Reader
	for _, name := range files {
		if err := readLogFile(cr, m, &br, name, inDir, total); err != nil {
			return nil, err
		}
	}
	if err := cr.finish(); err != nil {
		return nil, err
	}
	if err := m.Err(); err != nil {
		return nil, scan.StopError(path, total, err)
	}
	return b.History(), nil
}

// ReadLog reads a single Cobra log, detected in br, as a
// one-session history.
func ReadLog(br *bufio.Reader, name string) (*history.History, error) {
	b := newCobraBuilder()
	cr := &cobraReader{b: b, ids: make(map[uint64]cobraPlace)}
	if err := cr.readLog(br, name, b.AddFile(name), b.Session(cobraSession(name))); err != nil {
		return nil, err
	}
	return b.History(), nil
}

// readLogFile reads the log file name, with *br (reset to it, or made
// for an input of total bytes) and m.
func readLogFile(cr *cobraReader, m *progress.Meter, br **bufio.Reader, name string, inDir bool, total int64) error {
	f, err := openLog(name, inDir)
	if err != nil {
		return err
	}
	defer f.Close()
	sr := scan.NewStopReader(m, f)
	if *br == nil {
		*br = bufio.NewReaderSize(sr, scan.BufSize(total))
	} else {
		(*br).Reset(sr)
	}
	b := cr.b
	if err := cr.readLog(*br, name, b.AddFile(name), b.Session(cobraSession(name))); err != nil {
		return scan.Stopped(name, sr, err)
	}
	if err := m.Err(); err != nil {
		return scan.StopError(name, sr.N, err)
	}
	return nil
}

// checkLog checks the mode of a Cobra log: unless it is the only input,
// given by the user, it must be a regular file.
func checkLog(name string, mode os.FileMode, inDir bool) error {
	if mode.IsRegular() || !inDir && !mode.IsDir() {
		return nil
	}
	return scan.FileError(name, "not a regular file (%s): a Cobra log must be one", fileKind(mode))
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

// Logs returns the names of the T*.log files in dir, sorted by the
// number after the T (names without a number come last, by name).
func Logs(dir string) ([]string, error) {
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

// cobraReader reads the logs of one history. It keeps the transactions
// until every log is read, as a read may name a write of a later log, and
// then gives the operations their values (see finish).
type cobraReader struct {
	b *history.Builder
	// deferred says the caller calls finish after reading every log;
	// otherwise readLog does, for a history of one log.
	deferred bool
	// ids maps the id of every transaction read so far to where it starts.
	ids map[uint64]cobraPlace

	txns []cobraTxn
	ops  []history.Op
	// vals and wids are, for each operation of ops, the value of the file
	// and the write id (of the write, or of the write a read names).
	vals, wids []uint64
	reads      []cobraRead
	// shared holds the write ids that several writes have: the logs of
	// histories whose values repeat name no writer.
	shared map[uint64]bool
	writes map[uint64]cobraWrite
	files  []string
}

// cobraTxn is a transaction read, its operations ops[start:end].
type cobraTxn struct {
	txn        history.Txn
	start, end int32
}

// cobraRead is a read: operation op, at byte offset off of files[file],
// of the write wid of transaction wtxn.
type cobraRead struct {
	op   int32
	file int32
	off  int64
	wtxn uint64
	key  uint64
}

// cobraWrite is a write: operation op of transaction txn, of val to key.
type cobraWrite struct {
	op            int32
	txn, key, val uint64
}

// cobraPlace is where a transaction starts.
type cobraPlace struct {
	file string
	off  int64
}

func hexID(id uint64) string { return "0x" + strconv.FormatUint(id, 16) }

// readLog reads the log of one session.
func (r *cobraReader) readLog(br *bufio.Reader, name string, file, sess int32) error {
	if err := r.readLogTxns(br, name, file, sess); err != nil {
		return err
	}
	if !r.deferred {
		return r.finish()
	}
	return nil
}

func (r *cobraReader) readLogTxns(br *bufio.Reader, name string, file, sess int32) error {
	if blank, err := scan.SkipBlank(br, name, "a Cobra log"); err != nil {
		return err
	} else if blank {
		return nil
	}
	if r.writes == nil {
		r.writes = make(map[uint64]cobraWrite)
	}
	r.files = append(r.files, name)
	fileIndex := int32(len(r.files) - 1)
	inTxn := false
	var txnID uint64
	var txnPos int64
	var start int32
	add := func(status history.Status) {
		r.txns = append(r.txns, cobraTxn{history.Txn{
			ID:      hexID(txnID),
			Session: sess,
			Status:  status,
			Start:   history.NoTime,
			End:     history.NoTime,
			File:    file,
			Pos:     txnPos,
		}, start, int32(len(r.ops))})
	}
	var f [4]uint64
	for off := int64(0); ; {
		rec, err := br.Peek(1 + 8*4)
		if len(rec) == 0 {
			if err == io.EOF {
				break
			}
			return &scan.Error{File: name, Offset: off, Msg: "read error: " + err.Error(), Err: err}
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
			return scan.OffsetError(name, off, "unknown record type %q (want 'S', 'W', 'R' or 'C')", tag)
		}
		if len(rec)-1 < 8*n {
			if err != nil && err != io.EOF {
				return &scan.Error{File: name, Offset: off + int64(len(rec)), Msg: "read error: " + err.Error(), Err: err}
			}
			return scan.OffsetError(name, off, "unexpected end of file in a %c record: it needs %d bytes, the file ends after %d", tag, 1+8*n, len(rec))
		}
		for i := range n {
			f[i] = binary.BigEndian.Uint64(rec[1+8*i:])
		}
		if tag != 'S' && !inTxn {
			return scan.OffsetError(name, off, "%c record outside a transaction (no 'S' record before it)", tag)
		}
		switch tag {
		case 'S':
			if inTxn {
				return scan.OffsetError(name, off, "transaction %s starts before transaction %s (at byte offset %d) commits", hexID(f[0]), hexID(txnID), txnPos)
			}
			if p, ok := r.ids[f[0]]; ok {
				return scan.OffsetError(name, off, "duplicate transaction id %s: the transaction at %s: byte offset %d has it too", hexID(f[0]), p.file, p.off)
			}
			r.ids[f[0]] = cobraPlace{name, off}
			inTxn, txnID, txnPos = true, f[0], off
			start = int32(len(r.ops))
		case 'W':
			wid := f[0]
			switch wid {
			case 0, cobraInit, cobraNull, 1 << 63:
				return scan.OffsetError(name, off, "write id %s is reserved (it would be ambiguous)", hexID(wid))
			}
			if err := r.addOp(name, off, history.Write, f[1], f[2], wid); err != nil {
				return err
			}
			if _, ok := r.writes[wid]; ok {
				// Logs of histories whose values repeat give every write
				// one id and name it in every read: reads then name no
				// write, and their values stand for themselves.
				if r.shared == nil {
					r.shared = make(map[uint64]bool)
				}
				r.shared[wid] = true
				break
			}
			r.writes[wid] = cobraWrite{op: int32(len(r.ops) - 1), txn: txnID, key: f[1], val: f[2]}
		case 'R':
			wtxn, wid := f[0], f[1]
			switch {
			case wid == cobraInit || wid == cobraNull || wtxn == cobraInit || wtxn == cobraNull:
				if wtxn != wid {
					return scan.OffsetError(name, off, "read of write %s of transaction %s: INIT (0xbebeebee) and NULL (0xdeadbeef) must be in both ids", hexID(wid), hexID(wtxn))
				}
			case wid == 0 || wid == 1<<63:
				return scan.OffsetError(name, off, "read of write id %s, which is reserved (it would be ambiguous)", hexID(wid))
			}
			if err := r.addOp(name, off, history.Read, f[2], f[3], wid); err != nil {
				return err
			}
			r.reads = append(r.reads, cobraRead{op: int32(len(r.ops) - 1), file: fileIndex, off: off, wtxn: wtxn, key: f[2]})
		case 'C':
			if f[0] != txnID {
				return scan.OffsetError(name, off, "commit of transaction %s inside transaction %s (at byte offset %d)", hexID(f[0]), hexID(txnID), txnPos)
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

func (r *cobraReader) addOp(name string, off int64, kind history.OpKind, key, val, wid uint64) error {
	if len(r.ops) == scan.MaxOps {
		return scan.OffsetError(name, off, "too many operations (the limit is %d)", scan.MaxOps)
	}
	r.ops = append(r.ops, history.Op{Kind: kind, Key: scan.UintKey(r.b, key)})
	r.vals = append(r.vals, val)
	r.wids = append(r.wids, wid)
	return nil
}

// finish checks every read against the write it names, gives the
// operations their values (see the comment at the top of this file) and
// adds the transactions to the history.
func (r *cobraReader) finish() error {
	// The keys whose operations get write ids: those with two writes of
	// one value, or a write of 0.
	type kv struct {
		k history.Key
		v uint64
	}
	written := make(map[kv]int32, len(r.writes)) // write of each key and value
	useIDs := make(map[history.Key]bool)
	byValue := make(map[history.Key]bool) // keys written under a shared id
	for i, op := range r.ops {
		if op.Kind != history.Write {
			continue
		}
		if _, dup := written[kv{op.Key, r.vals[i]}]; dup || r.vals[i] == 0 {
			useIDs[op.Key] = true
		}
		if r.shared[r.wids[i]] {
			byValue[op.Key] = true
		}
		written[kv{op.Key, r.vals[i]}] = int32(i)
	}
	for k := range byValue {
		delete(useIDs, k)
	}
	initVal := make(map[history.Key]int) // index in r.reads of the first read of INIT
	src := make([]int32, len(r.reads))   // the write each read names, or -1
	for ri, rd := range r.reads {
		src[ri] = -1
		op := r.ops[rd.op]
		val, wid := r.vals[rd.op], r.wids[rd.op]
		name := r.files[rd.file]
		if wid == cobraInit {
			if first, ok := initVal[op.Key]; !ok {
				initVal[op.Key] = ri
			} else if fr := r.reads[first]; r.vals[fr.op] != val {
				return scan.OffsetError(name, rd.off, "read of the initial state of key %d returned %d, but the read at %s: byte offset %d returned %d", rd.key, val, r.files[fr.file], fr.off, r.vals[fr.op])
			}
			continue
		}
		if wid == cobraNull || r.shared[wid] {
			continue
		}
		w, ok := r.writes[wid]
		if !ok {
			// A write no log holds: the read saw a value nobody wrote.
			if _, clash := written[kv{op.Key, val}]; (clash || val == 0) && !byValue[op.Key] {
				useIDs[op.Key] = true
			}
			continue
		}
		if w.txn != rd.wtxn || w.key != rd.key || w.val != val {
			p := r.ids[w.txn]
			switch {
			case w.txn != rd.wtxn:
				return scan.OffsetError(name, rd.off, "read of key %d names write %s of transaction %s, but that write is in transaction %s (at %s: byte offset %d)", rd.key, hexID(wid), hexID(rd.wtxn), hexID(w.txn), p.file, p.off)
			case w.key != rd.key:
				return scan.OffsetError(name, rd.off, "read of key %d names write %s of transaction %s (at %s: byte offset %d), which wrote key %d", rd.key, hexID(wid), hexID(w.txn), p.file, p.off, w.key)
			}
			return scan.OffsetError(name, rd.off, "read of key %d returned %d, but the write it names, %s of transaction %s (at %s: byte offset %d), wrote %d", rd.key, val, hexID(wid), hexID(w.txn), p.file, p.off, w.val)
		}
		src[ri] = w.op
	}
	// Writes first; a read gets the value of the write it names.
	for i := range r.ops {
		if op := &r.ops[i]; op.Kind == history.Write {
			u := r.vals[i]
			if len(useIDs) > 0 && useIDs[op.Key] {
				u = r.wids[i]
			}
			op.Value = scan.UintValue(r.b, u)
		}
	}
	for ri, rd := range r.reads {
		op := &r.ops[rd.op]
		switch wid := r.wids[rd.op]; {
		case src[ri] >= 0:
			op.Value = r.ops[src[ri]].Value
		case wid == cobraInit || wid == cobraNull:
			op.Value = 0
		case len(useIDs) > 0 && useIDs[op.Key]:
			op.Value = scan.UintValue(r.b, wid)
		default:
			op.Value = scan.UintValue(r.b, r.vals[rd.op])
		}
	}
	r.b.Grow(len(r.txns), len(r.ops))
	for _, t := range r.txns {
		r.b.AddTxn(t.txn, r.ops[t.start:t.end])
	}
	*r = cobraReader{b: r.b, ids: r.ids, deferred: r.deferred, shared: r.shared}
	return nil
}

// LooksLike reports whether head starts with a Cobra 'S' record
// followed by another record or the end of the input.
func LooksLike(head []byte) bool {
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
