package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// endless yields head, then body over and over, without end; it counts
// the bytes it yields.
type endless struct {
	head, body string
	off        int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		var src string
		if e.off < int64(len(e.head)) {
			src = e.head[e.off:]
		} else {
			src = e.body[(e.off-int64(len(e.head)))%int64(len(e.body)):]
		}
		c := copy(p[n:], src)
		n += c
		e.off += int64(c)
	}
	return n, nil
}

// TestReadPlanBounded: an endless transaction, or an endless value of a
// field, is refused once it passes MaxPlanValue, having read little more,
// at the offset where the value starts.
func TestReadPlanBounded(t *testing.T) {
	const txnHead = `{"workload":"general","keys":3,"stride":10,"sessions":[[{"ops":[["r",1]]}, `
	for _, tc := range []struct {
		name string
		in   *endless
		off  int64
	}{
		{"transaction", &endless{head: txnHead + `{"ops":[`, body: `["r",1],`}, int64(len(txnHead))},
		{"field", &endless{head: `{"workload":"`, body: "general"}, int64(len(`{"workload":`))},
		{"name", &endless{head: `{"`, body: "keys"}, 1},
	} {
		_, err := ReadPlan(tc.in)
		pe, ok := errors.AsType[*PlanError](err)
		// The offset is the value's, or that of the separator and
		// spaces before it.
		if !ok || !errors.Is(err, errValueTooLong) || pe.Offset > tc.off || strings.Trim(tc.in.head[pe.Offset:tc.off], " ,:") != "" {
			t.Errorf("%s: ReadPlan = %v, want a value too long at byte %d", tc.name, err, tc.off)
		}
		if tc.in.off > 4*MaxPlanValue {
			t.Errorf("%s: read %d bytes before refusing a value over %d", tc.name, tc.in.off, MaxPlanValue)
		}
	}
}

// TestReadPlanFileTooLarge: a file over MaxPlanFile is refused before it
// is read.
func TestReadPlanFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxPlanFile + 1); err != nil { // sparse
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadPlanFile(path); !errors.Is(err, errFileTooLong) || !strings.Contains(err.Error(), path) {
		t.Fatalf("ReadPlanFile of %d bytes: %v", MaxPlanFile+1, err)
	}
}

// TestReadPlanFileErrorPositions: an error deep in a pretty-printed plan
// file names its line, column and byte offset.
func TestReadPlanFileErrorPositions(t *testing.T) {
	plan, err := NewPlan(PlanConfig{Sessions: 4, TxnsPerSession: 50, OpsPerTxn: 3, Keys: 10, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	good, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// The last operation of session 3, transaction 40, is replaced.
	for _, tc := range []struct {
		name, with, want string
		truncate         bool
	}{
		{"unknown kind", `["x",1,5]`, `unknown operation kind "x"`, false},
		{"syntax", `["w",1,5}`, "invalid character", false},
		{"cut short", "", "unexpected end of the file", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx := nthOp(t, good, 3*50*3+40*3+2)
			var in []byte
			if tc.truncate {
				in = good[:idx+3]
			} else {
				end := idx + bytes.IndexByte(good[idx:], ']') + 1
				in = append(append(append([]byte(nil), good[:idx]...), tc.with...), good[end:]...)
			}
			path := filepath.Join(t.TempDir(), "plan.json")
			if err := os.WriteFile(path, in, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadPlanFile(path)
			pe, ok := errors.AsType[*PlanError](err)
			if !ok || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadPlanFile: %v, want %q", err, tc.want)
			}
			if tc.truncate {
				// The error is at the cut transaction's start.
				if pe.Offset == 0 || pe.Offset > int64(len(in)) || in[pe.Offset] != '{' {
					t.Fatalf("cut short: offset %d of %d", pe.Offset, len(in))
				}
			} else if pe.Offset != int64(idx) && tc.name != "syntax" {
				t.Fatalf("offset %d, want %d (%q)", pe.Offset, idx, in[pe.Offset:min(len(in), int(pe.Offset)+20)])
			}
			line := 1 + bytes.Count(in[:pe.Offset], []byte("\n"))
			col := int(pe.Offset) - bytes.LastIndexByte(in[:pe.Offset], '\n')
			if pe.Line != line || pe.Column != col || line < 100 {
				t.Fatalf("line %d, column %d; offset %d is at line %d, column %d", pe.Line, pe.Column, pe.Offset, line, col)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("the error does not name the file: %v", err)
			}
		})
	}
}

// nthOp returns the offset of the n-th operation (from 0) of the
// pretty-printed plan file b: operations are the arrays nested in "ops".
func nthOp(t *testing.T, b []byte, n int) int {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, seen := 0, 0
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			t.Fatalf("no operation %d", n)
		}
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			// sessions [ session [ txn { ops [ op [
			if tok == json.Delim('[') && depth == 6 {
				if seen == n {
					// off is before the separator and spaces.
					for b[off] != '[' {
						off++
					}
					return int(off)
				}
				seen++
			}
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}
