package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// A plan file is the JSON of a Plan, with each operation written as in the
// native history format: ["r", key], ["w", key, value], ["append", key,
// value] or ["cas", key, value].

// MarshalJSON writes the operation as a JSON array.
func (op OpPlan) MarshalJSON() ([]byte, error) {
	if op.Kind == ReadOp {
		return fmt.Appendf(nil, `["r",%d]`, op.Key), nil
	}
	return fmt.Appendf(nil, `[%q,%d,%d]`, op.Kind, op.Key, op.Value), nil
}

// UnmarshalJSON reads an operation written by MarshalJSON.
func (op *OpPlan) UnmarshalJSON(b []byte) error {
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("an operation is an array like [\"w\", key, value]: %w", err)
	}
	if len(parts) < 2 {
		return fmt.Errorf("an operation needs a kind and a key, not %s", clip(b))
	}
	if err := json.Unmarshal(parts[0], &op.Kind); err != nil {
		return fmt.Errorf("operation kind %s: %w", clip(parts[0]), err)
	}
	want := 3
	switch op.Kind {
	case ReadOp:
		want = 2
	case WriteOp, AppendOp, CASOp:
	default:
		return fmt.Errorf("unknown operation kind %q (want r, w, append or cas)", op.Kind)
	}
	if len(parts) != want {
		return fmt.Errorf("a %q operation has %d elements, not %d", op.Kind, want, len(parts))
	}
	if err := json.Unmarshal(parts[1], &op.Key); err != nil {
		return fmt.Errorf("key %s is not an integer", clip(parts[1]))
	}
	op.Value = 0
	if want == 3 {
		if err := json.Unmarshal(parts[2], &op.Value); err != nil {
			return fmt.Errorf("value %s is not an integer", clip(parts[2]))
		}
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%s… (%d bytes)", b[:40], len(b))
	}
	return string(b)
}

// WritePlan writes p as JSON.
func WritePlan(w io.Writer, p *Plan) error {
	enc := json.NewEncoder(w)
	return enc.Encode(p)
}

// Bounds of the plan files ReadPlan accepts: however large or hostile
// its input, it holds at most about MaxPlanValue bytes of it at a time,
// beside the plan it builds (at most MaxPlanOps operations).
const (
	// MaxPlanFile bounds the size of a plan file.
	MaxPlanFile = 1 << 30
	// MaxPlanValue bounds the size of one transaction of a plan file (or
	// of any other JSON value in it but the sessions).
	MaxPlanValue = 16 << 20
)

// PlanError is an error in a plan file, at a byte offset.
type PlanError struct {
	// Offset is the byte offset of the JSON value (the transaction,
	// operation or field) the error is in, or went past a bound. ReadPlan
	// cannot always see past the separator before a value: the value
	// starts at the first byte at or after Offset that is not a space,
	// ',' or ':', where ReadPlanFile moves Offset.
	Offset int64
	// Line and Column, from 1, are where that value starts, when
	// ReadPlanFile could find them; 0 otherwise.
	Line, Column int
	Err          error
}

func (e *PlanError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d (byte %d): %v", e.Line, e.Column, e.Offset, e.Err)
	}
	return fmt.Sprintf("byte %d: %v", e.Offset, e.Err)
}

func (e *PlanError) Unwrap() error { return e.Err }

// errValueTooLong and errFileTooLong stop a plan file past its bounds.
var (
	errValueTooLong = fmt.Errorf("a JSON value longer than %d bytes: a transaction of a plan file is at most that long", MaxPlanValue)
	errFileTooLong  = fmt.Errorf("a plan file is at most %d bytes", MaxPlanFile)
)

// boundedReader feeds a json.Decoder no more than MaxPlanFile bytes, and
// no more once the decoder holds MaxPlanValue bytes of one value.
type boundedReader struct {
	r    io.Reader
	dec  *json.Decoder
	read int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.read-b.dec.InputOffset() > MaxPlanValue {
		return 0, errValueTooLong
	}
	if b.read > MaxPlanFile {
		return 0, errFileTooLong
	}
	p = p[:min(int64(len(p)), MaxPlanFile+1-b.read)]
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

// ReadPlan reads a plan written by WritePlan and checks it: known
// operation kinds, keys within [0, Keys), registers or lists but not both,
// and every written value unique to its key unless the plan has Values.
// It streams its input, one
// transaction at a time, within the bounds above. Its errors are
// *PlanError, with the byte offset of the transaction or operation at
// fault; ReadPlanFile adds lines and columns.
func ReadPlan(r io.Reader) (*Plan, error) {
	pr := &planReader{}
	br := &boundedReader{r: r}
	pr.dec = json.NewDecoder(br)
	br.dec = pr.dec
	p, err := pr.read()
	if err != nil {
		return nil, err
	}
	return p, nil
}

// planReader reads a plan file.
type planReader struct {
	dec *json.Decoder
	ops int
}

// fail returns the error at offset off, with the reason for a decoder's
// error.
func (pr *planReader) fail(off int64, err error) error {
	switch {
	case errors.Is(err, errValueTooLong), errors.Is(err, errFileTooLong):
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		err = errors.New("unexpected end of the file: the plan is cut short")
	}
	return &PlanError{Offset: off, Err: err}
}

// delim reads a token that must be the delimiter want.
func (pr *planReader) delim(want json.Delim, what string) error {
	off := pr.dec.InputOffset()
	t, err := pr.dec.Token()
	if err != nil {
		return pr.fail(off, err)
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return pr.fail(off, fmt.Errorf("%s: want '%c', not %v", what, want, t))
	}
	return nil
}

func (pr *planReader) read() (*Plan, error) {
	var p Plan
	t, err := pr.dec.Token()
	switch {
	case err == io.EOF:
		return nil, &PlanError{Err: errors.New("empty plan file")}
	case err != nil:
		return nil, pr.fail(0, err)
	case t != json.Delim('{'):
		return nil, pr.fail(0, fmt.Errorf("a plan file is a JSON object, not %v", t))
	}
	sessions := false
	for pr.dec.More() {
		off := pr.dec.InputOffset()
		t, err := pr.dec.Token()
		if err != nil {
			return nil, pr.fail(off, err)
		}
		name, _ := t.(string)
		var field any
		switch name {
		case "workload":
			field = &p.Workload
		case "seed":
			field = &p.Seed
		case "keys":
			field = &p.Keys
		case "lists":
			field = &p.Lists
		case "stride":
			field = &p.Stride
		case "values":
			field = &p.Values
		case "sessions":
			if err := pr.sessions(&p); err != nil {
				return nil, err
			}
			sessions = true
			continue
		default:
			return nil, pr.fail(off, fmt.Errorf("unknown field %q of a plan", name))
		}
		off = pr.dec.InputOffset()
		if err := pr.dec.Decode(field); err != nil {
			return nil, pr.fail(off, fmt.Errorf("field %q: %w", name, err))
		}
	}
	if err := pr.delim('}', "the end of the plan"); err != nil {
		return nil, err
	}
	off := pr.dec.InputOffset()
	if _, err := pr.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the plan")
		}
		return nil, pr.fail(off, err)
	}
	if !sessions {
		return nil, &PlanError{Offset: off, Err: errors.New("the plan has no sessions")}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// sessions reads the sessions of the plan, one transaction at a time.
func (pr *planReader) sessions(p *Plan) error {
	if err := pr.delim('[', "sessions"); err != nil {
		return err
	}
	for pr.dec.More() {
		s := len(p.Sessions)
		if err := pr.delim('[', fmt.Sprintf("session %d", s)); err != nil {
			return err
		}
		var txns []TxnPlan
		for pr.dec.More() {
			off := pr.dec.InputOffset()
			var raw json.RawMessage
			if err := pr.dec.Decode(&raw); err != nil {
				return pr.fail(off, fmt.Errorf("session %d, transaction %d: %w", s, len(txns), err))
			}
			start := pr.dec.InputOffset() - int64(len(raw))
			t, err := readTxn(raw, start)
			if err != nil {
				return fmt.Errorf("session %d, transaction %d: %w", s, len(txns), err)
			}
			if pr.ops += len(t.Ops); pr.ops > MaxPlanOps {
				return pr.fail(start, fmt.Errorf("more than the %d operations a plan can have", MaxPlanOps))
			}
			txns = append(txns, t)
		}
		if err := pr.delim(']', fmt.Sprintf("the end of session %d", s)); err != nil {
			return err
		}
		p.Sessions = append(p.Sessions, txns)
	}
	return pr.delim(']', "the end of the sessions")
}

// readTxn reads a transaction that starts at byte start of the file.
func readTxn(raw []byte, start int64) (TxnPlan, error) {
	var t TxnPlan
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&t)
	if err == nil {
		return t, nil
	}
	// Find the operation at fault, for its offset.
	ops := json.NewDecoder(bytes.NewReader(raw))
	if tok, _ := ops.Token(); tok == json.Delim('{') {
		for ops.More() {
			name, _ := ops.Token()
			if name != "ops" {
				var skip json.RawMessage
				ops.Decode(&skip)
				continue
			}
			if tok, _ := ops.Token(); tok != json.Delim('[') {
				break
			}
			for i := 0; ops.More(); i++ {
				var op json.RawMessage
				if ops.Decode(&op) != nil {
					break
				}
				var o OpPlan
				if oerr := o.UnmarshalJSON(op); oerr != nil {
					return t, &PlanError{Offset: start + ops.InputOffset() - int64(len(op)), Err: fmt.Errorf("operation %d: %w", i, oerr)}
				}
			}
			break
		}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		err = fmt.Errorf("field %q: %w", te.Field, err)
	}
	return t, &PlanError{Offset: start, Err: err}
}

// ReadPlanFile reads the plan file at path with ReadPlan, refusing a file
// over MaxPlanFile bytes before it reads it; a *PlanError it returns has
// the line and column of its offset.
func ReadPlanFile(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxPlanFile {
		return nil, fmt.Errorf("%s: %d bytes: %w", path, fi.Size(), errFileTooLong)
	}
	p, err := ReadPlan(f)
	if err == nil {
		return p, nil
	}
	if pe, ok := errors.AsType[*PlanError](err); ok {
		locate(f, pe)
	}
	return nil, fmt.Errorf("%s: %w", path, err)
}

// locate sets e's line and column by reading f again up to e's offset,
// and moves the offset past spaces and separators to the value's start.
func locate(f *os.File, e *PlanError) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return
	}
	br := bufio.NewReader(f)
	line, col := 1, 1
	var off int64
	for {
		c, err := br.ReadByte()
		if err != nil {
			break
		}
		if off >= e.Offset && !strings.ContainsRune(" \t\r\n,:", rune(c)) {
			break
		}
		off++
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	e.Offset, e.Line, e.Column = off, line, col
}

// Validate checks what ReadPlan promises.
func (p *Plan) Validate() error {
	if _, err := ParseKind(string(p.Workload)); err != nil {
		return err
	}
	if p.Keys <= 0 || p.Keys > MaxKeys {
		return fmt.Errorf("keys must be within [1, %d], not %d", MaxKeys, p.Keys)
	}
	if len(p.Sessions) == 0 {
		return errors.New("the plan has no session")
	}
	if p.Values < 0 || p.Values > 0 && p.Lists {
		return fmt.Errorf("values %d: a plan of registers may repeat values (values > 0), a plan of lists may not", p.Values)
	}
	type kv struct{ k, v int64 }
	seen := make(map[kv]struct{})
	for s, txns := range p.Sessions {
		for t, tx := range txns {
			if len(tx.Ops) == 0 {
				return fmt.Errorf("session %d, transaction %d: no operation", s, t)
			}
			for i, op := range tx.Ops {
				where := func() string { return fmt.Sprintf("session %d, transaction %d, operation %d", s, t, i) }
				if op.Key < 0 || op.Key >= int64(p.Keys) {
					return fmt.Errorf("%s: key %d is outside [0, %d)", where(), op.Key, p.Keys)
				}
				if p.Lists && (op.Kind == WriteOp || op.Kind == CASOp) || !p.Lists && op.Kind == AppendOp {
					return fmt.Errorf("%s: a %q operation in a plan of %s", where(), op.Kind, map[bool]string{true: "lists", false: "registers"}[p.Lists])
				}
				if op.Kind == ReadOp {
					continue
				}
				if _, dup := seen[kv{op.Key, op.Value}]; dup && p.Values == 0 {
					return fmt.Errorf("%s: value %d is written to key %d twice (values must be unique)", where(), op.Value, op.Key)
				}
				seen[kv{op.Key, op.Value}] = struct{}{}
			}
		}
	}
	return nil
}
