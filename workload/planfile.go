package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// MaxPlanFile bounds the size of a plan file ReadPlan accepts.
const MaxPlanFile = 1 << 30

// ReadPlan reads a plan written by WritePlan and checks it: known
// operation kinds, keys within [0, Keys), registers or lists but not both,
// and every written value unique to its key. Errors give the byte offset.
func ReadPlan(r io.Reader) (*Plan, error) {
	lr := &io.LimitedReader{R: r, N: MaxPlanFile + 1}
	dec := json.NewDecoder(lr)
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		if lr.N == 0 {
			return nil, fmt.Errorf("a plan file is at most %d bytes", MaxPlanFile)
		}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("byte %d: %w", se.Offset, err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("byte %d: %w", te.Offset, err)
		case errors.Is(err, io.EOF):
			return nil, errors.New("empty plan file")
		}
		return nil, fmt.Errorf("byte %d: %w", dec.InputOffset(), err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
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
				if _, dup := seen[kv{op.Key, op.Value}]; dup {
					return fmt.Errorf("%s: value %d is written to key %d twice (values must be unique)", where(), op.Value, op.Key)
				}
				seen[kv{op.Key, op.Value}] = struct{}{}
			}
		}
	}
	return nil
}
