package jsonl

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

// Reading JSONL in parallel.
//
// A goroutine cuts the input into chunks at line boundaries; workers scan
// the lines of each chunk into fastTxn records (scanning is most of the
// cost of reading a line, and needs no shared state); the reading
// goroutine merges the records in input order into the history, interning
// names as the sequential reader does. A line that is not of the common
// shape (lists, version orders, escapes, errors, ...) is left to the
// sequential reader, r.parseLine, when its turn comes, so that the history
// and every error are exactly those of reading the input line by line.
// A line too long for a chunk makes the rest of the input be read line by
// line.

// parallelConfig says when and how the JSONL reader reads in parallel;
// the tests make it small to exercise chunk boundaries and the fallbacks
// on small inputs.
type parallelConfig struct {
	// minSize is the size from which an input is read in parallel.
	MinSize int64
	// chunk is the size of a chunk.
	Chunk int
	// workers is the number of workers, 0 for GOMAXPROCS.
	Workers int
}

// defaultParallel is the configuration Read uses.
var defaultParallel = parallelConfig{MinSize: 4 << 20, Chunk: 1 << 20}

// fastTxn is a line as a worker scanned it. Strings are offsets and
// lengths into the chunk.
type fastTxn struct {
	line     int   // the line number
	from, to int32 // the line's bytes in the chunk
	slow     bool  // not scanned: the sequential reader reads the line
	// session: an integer, or a string (sessLen >= 0)
	sess            int64
	sessOff, sessLn int32
	// id: none (idLen == -2), an integer (idLen == -1) or a string
	id           int64
	idOff, idLen int32
	status       history.Status
	start, end   int64
	opFrom, opTo int32 // its operations in chunkResult.ops
}

// Kinds of the value of a fastOp.
const (
	fastInt = iota
	fastNull
	fastStr
)

// fastOp is an operation as a worker scanned it: the key is an integer
// when keyLen is -1, else the string at keyOff; likewise the value by
// valKind.
type fastOp struct {
	kind           history.OpKind
	valKind        uint8
	keyOff, keyLen int32
	valOff, valLen int32
	key, val       int64
}

// chunkJob is a chunk of lines, the first being line firstLine.
type chunkJob struct {
	data      []byte
	firstLine int
	res       *chunkResult
	done      chan struct{} // closed when res is ready
	// rest, when set, ends the chunks: the input from data (which holds
	// no whole line) on is read line by line, starting at byte offset off.
	rest bool
	off  int64
	err  error // a read error after data
}

type chunkResult struct {
	txns []fastTxn
	ops  []fastOp
	sc   scan.Scanner
}

// readJSONLParallel reads the lines of lr in parallel into r. It is called
// only on a fresh scan.LineReader.
func (r *jsonlReader) readParallel(lr *scan.LineReader, cfg parallelConfig) error {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunkSize := max(cfg.Chunk, 64)
	jobs := make(chan *chunkJob, workers)
	order := make(chan *chunkJob, 2*workers+2)
	free := make(chan *chunkJob, 2*workers+4)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		wg.Wait()
	}()
	wg.Add(1 + workers)
	go func() { // the cutter
		defer wg.Done()
		defer close(order)
		defer close(jobs)
		var carry []byte
		line, off := lr.Line+1, lr.NextOff // a part of an input begins past its start
		for {
			var j *chunkJob
			select {
			case j = <-free:
			default:
				j = &chunkJob{res: &chunkResult{}}
			}
			if cap(j.data) < chunkSize {
				j.data = make([]byte, chunkSize)
			}
			buf := j.data[:chunkSize]
			n := copy(buf, carry)
			m, err := io.ReadFull(lr.Br, buf[n:])
			n += m
			eof := err == io.EOF || err == io.ErrUnexpectedEOF
			if eof {
				err = nil
			}
			cut := n // the end of the whole lines
			if !eof && err == nil {
				cut = bytes.LastIndexByte(buf[:n], '\n') + 1
			}
			if err != nil {
				// A read error: the whole lines before it are read,
				// then the error, as the sequential reader does.
				cut = bytes.LastIndexByte(buf[:n], '\n') + 1
			}
			j.firstLine, j.off, j.err, j.rest = line, off, err, false
			j.done = make(chan struct{})
			if cut == 0 && !eof && err == nil {
				// No line ends in a whole chunk: the rest is read
				// line by line.
				j.data, j.rest = buf[:n], true
				close(j.done)
				select {
				case order <- j:
				case <-stop:
				}
				return
			}
			carry = append(carry[:0], buf[cut:n]...)
			j.data = buf[:cut]
			line += bytes.Count(j.data, []byte{'\n'})
			off += int64(cut)
			select {
			case order <- j:
			case <-stop:
				return
			}
			select {
			case jobs <- j:
			case <-stop:
				return
			}
			if eof || err != nil {
				return
			}
		}
	}()
	for range workers {
		go func() {
			defer wg.Done()
			for j := range jobs {
				scanChunk(j)
				close(j.done)
			}
		}()
	}
	for j := range order {
		<-j.done
		if j.rest {
			return r.readRest(lr, j)
		}
		if err := r.mergeChunk(j); err != nil {
			return err
		}
		if j.err != nil {
			return &scan.Error{File: r.name, Line: j.firstLine + bytes.Count(j.data, []byte{'\n'}), Msg: "read error: " + j.err.Error(), Err: j.err}
		}
		select {
		case free <- j:
		default:
		}
	}
	return nil
}

// readRest reads the rest of the input, from job j on, line by line.
func (r *jsonlReader) readRest(lr *scan.LineReader, j *chunkJob) error {
	rest := &scan.LineReader{
		Br:      bufio.NewReaderSize(io.MultiReader(bytes.NewReader(j.data), lr.Br), lr.Br.Size()),
		Name:    lr.Name,
		Line:    j.firstLine - 1,
		NextOff: j.off,
		Max:     lr.Max,
	}
	for {
		line, err := rest.NextContent()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := r.parseLine(line, rest.Line); err != nil {
			return err
		}
	}
}

// scanChunk scans the lines of j.
func scanChunk(j *chunkJob) {
	res := j.res
	res.txns, res.ops = res.txns[:0], res.ops[:0]
	data := j.data
	lineNo := j.firstLine
	for from := 0; from < len(data); lineNo++ {
		to := bytes.IndexByte(data[from:], '\n')
		next := from + to + 1
		if to < 0 {
			to, next = len(data), len(data)
		} else {
			to += from
		}
		line := data[from:to]
		if lineNo == 1 && len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
			line, from = line[3:], from+3 // byte order mark
		}
		if !scan.IsBlank(line) {
			t := fastTxn{line: lineNo, from: int32(from), to: int32(to)}
			opFrom := len(res.ops)
			if !res.scanTxn(line, int32(from), &t) {
				res.ops = res.ops[:opFrom]
				t = fastTxn{line: lineNo, from: int32(from), to: int32(to), slow: true}
			}
			res.txns = append(res.txns, t)
		}
		from = next
	}
}

// scanTxn scans a transaction line of the common shape into t and res.ops,
// or reports false. base is the offset of the line in the chunk.
func (res *chunkResult) scanTxn(line []byte, base int32, t *fastTxn) bool {
	p := &res.sc
	p.S, p.I = line, 0
	*t = fastTxn{line: t.line, from: t.from, to: t.to, idLen: -2, status: history.Committed, start: history.NoTime, end: history.NoTime, sessLn: -1}
	t.opFrom = int32(len(res.ops))
	p.Ws()
	if !p.Eat('{') {
		return false
	}
	seen := 0
	p.Ws()
	if p.Eat('}') {
		return false // no session, no ops
	}
	for {
		p.Ws()
		if p.Peek() != '"' {
			return false
		}
		name, err := p.Str()
		if err != nil {
			return false
		}
		bit := fieldBit(name)
		if bit == 0 || seen&bit != 0 || bit&txnFields == 0 {
			return false
		}
		seen |= bit
		p.Ws()
		if !p.Eat(':') {
			return false
		}
		p.Ws()
		col := p.I
		switch bit {
		case fOps:
			if !res.scanOps(base) {
				return false
			}
		default:
			kind, s, n, err := p.Scalar()
			if err != nil {
				return false
			}
			off, ln, ok := strPlace(p, col, kind, s)
			if !ok {
				return false
			}
			switch bit {
			case fSession:
				switch kind {
				case scan.TokInt:
					t.sess = n
				case scan.TokString, scan.TokBigInt:
					t.sessOff, t.sessLn = base+off, ln
				default:
					return false
				}
			case fID:
				switch kind {
				case scan.TokInt:
					t.id, t.idLen = n, -1
				case scan.TokString, scan.TokBigInt:
					t.idOff, t.idLen = base+off, ln
				case scan.TokNull:
				default:
					return false
				}
			case fStatus:
				if kind != scan.TokString {
					return false
				}
				st, ok := history.ParseStatus(string(s))
				if !ok {
					return false
				}
				t.status = st
			case fStart, fEnd:
				switch kind {
				case scan.TokInt:
					if n == history.NoTime {
						return false
					}
					if bit == fStart {
						t.start = n
					} else {
						t.end = n
					}
				case scan.TokNull:
				default:
					return false
				}
			}
		}
		p.Ws()
		if p.Eat(',') {
			continue
		}
		if p.Eat('}') {
			break
		}
		return false
	}
	p.Ws()
	if p.I < len(p.S) || seen&fSession == 0 || seen&fOps == 0 {
		return false
	}
	if t.start != history.NoTime && t.end != history.NoTime && t.end < t.start {
		return false
	}
	t.opTo = int32(len(res.ops))
	return true
}

// strPlace returns the place in the line of the string or big integer s
// that p.scalar returned for a value at col, or false if it has escapes
// (then s is not in the line).
func strPlace(p *scan.Scanner, col int, kind scan.TokKind, s []byte) (int32, int32, bool) {
	switch kind {
	case scan.TokString:
		if p.I-col != len(s)+2 {
			return 0, 0, false
		}
		return int32(col + 1), int32(len(s)), true
	case scan.TokBigInt:
		return int32(col), int32(len(s)), true
	}
	return 0, 0, true
}

// scanOps scans the operations of a transaction, reads and writes of
// single values only.
func (res *chunkResult) scanOps(base int32) bool {
	p := &res.sc
	if !p.Eat('[') {
		return false
	}
	p.Ws()
	if p.Eat(']') {
		return true
	}
	for {
		p.Ws()
		if !p.Eat('[') {
			return false
		}
		var op fastOp
		p.Ws()
		kind, s, _, err := p.Scalar()
		if err != nil || kind != scan.TokString {
			return false
		}
		switch string(s) {
		case "r":
			op.kind = history.Read
		case "w":
			op.kind = history.Write
		default:
			return false
		}
		p.Ws()
		if !p.Eat(',') {
			return false
		}
		p.Ws()
		col := p.I
		kind, s, n, err := p.Scalar()
		if err != nil {
			return false
		}
		switch kind {
		case scan.TokInt:
			op.key, op.keyLen = n, -1
		case scan.TokString, scan.TokBigInt:
			off, ln, ok := strPlace(p, col, kind, s)
			if !ok {
				return false
			}
			op.keyOff, op.keyLen = base+off, ln
		default:
			return false
		}
		p.Ws()
		if !p.Eat(',') {
			return false
		}
		p.Ws()
		col = p.I
		kind, s, n, err = p.Scalar()
		if err != nil {
			return false
		}
		switch kind {
		case scan.TokInt:
			op.valKind, op.val = fastInt, n
		case scan.TokNull:
			if op.kind == history.Write {
				return false
			}
			op.valKind = fastNull
		case scan.TokString, scan.TokBigInt:
			off, ln, ok := strPlace(p, col, kind, s)
			if !ok {
				return false
			}
			op.valKind, op.valOff, op.valLen = fastStr, base+off, ln
		default:
			return false
		}
		p.Ws()
		if !p.Eat(']') {
			return false
		}
		res.ops = append(res.ops, op)
		p.Ws()
		if p.Eat(',') {
			continue
		}
		return p.Eat(']')
	}
}

// mergeChunk adds the transactions of chunk j to the history, in order.
func (r *jsonlReader) mergeChunk(j *chunkJob) error {
	data := j.data
	for i := range j.res.txns {
		ft := &j.res.txns[i]
		if ft.slow {
			if err := r.parseLine(data[ft.from:ft.to], ft.line); err != nil {
				return err
			}
			continue
		}
		ops := j.res.ops[ft.opFrom:ft.opTo]
		// The first operation that shows a history of registers, as
		// r.register sees them: a write, or a read of a value.
		reg := -1
		for k := range ops {
			if ops[k].kind == history.Write || ops[k].valKind != fastNull {
				reg = k
				break
			}
		}
		if reg >= 0 && r.listLine != 0 {
			// An error: the sequential reader says which.
			if err := r.parseLine(data[ft.from:ft.to], ft.line); err != nil {
				return err
			}
			continue
		}
		if err := r.addFast(ft, ops, reg, data); err != nil {
			return err
		}
	}
	return nil
}

// addFast adds the transaction ft, whose operations are ops, as parseTxn
// does; reg is the first operation that shows a history of registers, -1
// if none does.
func (r *jsonlReader) addFast(ft *fastTxn, ops []fastOp, reg int, data []byte) error {
	lineNo := ft.line
	r.line = lineNo
	t := history.Txn{Status: ft.status, Start: ft.start, End: ft.end, Pos: int64(lineNo)}
	if ft.sessLn < 0 {
		t.Session = r.b.IntSession(ft.sess)
	} else {
		s := data[ft.sessOff : ft.sessOff+ft.sessLn]
		sess, ok := r.sess[string(s)]
		if !ok {
			sess = r.b.Session(string(s))
			r.sess[string(s)] = sess
		}
		t.Session = sess
	}
	idSet := true
	switch ft.idLen {
	case -2:
		idSet = false
	case -1:
		t.ID = strconv.FormatInt(ft.id, 10)
	default:
		t.ID = string(data[ft.idOff : ft.idOff+ft.idLen])
	}
	// Integer keys are interned together (see IntKeys) when all are.
	r.intKeys = r.intKeys[:0]
	for k := range ops {
		if ops[k].keyLen >= 0 {
			r.intKeys = r.intKeys[:0]
			break
		}
		r.intKeys = append(r.intKeys, ops[k].key)
	}
	batch := len(r.intKeys) > 0
	if batch {
		r.keyBuf = slices.Grow(r.keyBuf[:0], len(ops))[:len(ops)]
		r.b.IntKeys(r.intKeys, r.keyBuf)
	}
	r.ops = r.ops[:0]
	for k := range ops {
		op := &ops[k]
		h := history.Op{Kind: op.kind}
		if batch {
			h.Key = r.keyBuf[k]
		} else if op.keyLen < 0 {
			h.Key = r.b.IntKey(op.key)
		} else {
			s := data[op.keyOff : op.keyOff+op.keyLen]
			key, ok := r.keys[string(s)]
			if !ok {
				key = r.b.Key(string(s))
				r.keys[string(s)] = key
			}
			h.Key = key
		}
		switch op.valKind {
		case fastNull:
			h.Value = history.Null
		case fastInt:
			if op.val < scan.MaxNativeInt && op.val > -scan.MaxNativeInt {
				h.Value = history.Value(op.val)
				break
			}
			r.sc.Buf = strconv.AppendInt(r.sc.Buf[:0], op.val, 10)
			h.Value = r.value(r.sc.Buf)
		case fastStr:
			h.Value = r.value(data[op.valOff : op.valOff+op.valLen])
		}
		r.ops = append(r.ops, h)
	}
	if reg >= 0 && r.regLine == 0 {
		r.regLine, r.regWhat = lineNo, "reads a single value"
		if ops[reg].kind == history.Write {
			r.regWhat = "writes with \"w\""
		}
	}
	// In a history of lists, this transaction only reads null.
	return r.addTxn(t, idSet, lineNo, false)
}

// value interns the string value s.
func (r *jsonlReader) value(s []byte) history.Value {
	v, ok := r.vals[string(s)]
	if !ok {
		v = r.b.StringValue(string(s))
		r.vals[string(s)] = v
	}
	return v
}
