package workload

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestNewPlanShapes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   PlanConfig
		check func(t *testing.T, tx TxnPlan)
	}{
		{"general", PlanConfig{Sessions: 3, TxnsPerSession: 50, OpsPerTxn: 6, Keys: 20, ReadProportion: -1}, func(t *testing.T, tx TxnPlan) {
			if len(tx.Ops) != 6 {
				t.Fatalf("%d operations, want 6", len(tx.Ops))
			}
			for _, op := range tx.Ops {
				if op.Kind != ReadOp && op.Kind != WriteOp {
					t.Fatalf("kind %q in a general plan", op.Kind)
				}
			}
		}},
		{"mini", PlanConfig{Workload: MiniTxn, Sessions: 3, TxnsPerSession: 200, Keys: 5, ReadProportion: -1}, func(t *testing.T, tx TxnPlan) {
			if len(tx.Ops) > 4 {
				t.Fatalf("%d operations, want at most 4", len(tx.Ops))
			}
			read := map[int64]bool{}
			for _, op := range tx.Ops {
				switch op.Kind {
				case ReadOp:
					read[op.Key] = true
				case WriteOp:
					if !read[op.Key] {
						t.Fatalf("write of %d not preceded by a read of it: %v", op.Key, tx.Ops)
					}
				default:
					t.Fatalf("kind %q in a mini plan", op.Kind)
				}
			}
		}},
		{"lwt", PlanConfig{Workload: LWT, Sessions: 2, TxnsPerSession: 30, Keys: 3, ReadProportion: -1}, func(t *testing.T, tx TxnPlan) {
			if len(tx.Ops) != 1 || tx.Ops[0].Kind != ReadOp && tx.Ops[0].Kind != CASOp {
				t.Fatalf("a lightweight transaction is one read or CAS, not %v", tx.Ops)
			}
		}},
		{"append", PlanConfig{Workload: ListAppend, Sessions: 2, TxnsPerSession: 30, OpsPerTxn: 4, Keys: 3, ReadProportion: -1}, func(t *testing.T, tx TxnPlan) {
			for _, op := range tx.Ops {
				if op.Kind != ReadOp && op.Kind != AppendOp {
					t.Fatalf("kind %q in a list-append plan", op.Kind)
				}
			}
		}},
		{"long", PlanConfig{Sessions: 2, TxnsPerSession: 100, OpsPerTxn: 2, LongProportion: 1, LongOps: 9, Keys: 10}, func(t *testing.T, tx TxnPlan) {
			if len(tx.Ops) != 9 {
				t.Fatalf("a long transaction has %d operations, want 9", len(tx.Ops))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPlan(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("a new plan is invalid: %v", err)
			}
			if len(p.Sessions) != tc.cfg.Sessions || p.Txns() != tc.cfg.Sessions*tc.cfg.TxnsPerSession {
				t.Fatalf("%d sessions, %d transactions", len(p.Sessions), p.Txns())
			}
			for s, txns := range p.Sessions {
				for _, tx := range txns {
					tc.check(t, tx)
					for _, op := range tx.Ops {
						if op.Kind != ReadOp && op.Value/p.Stride != int64(s+1) {
							t.Fatalf("session %d wrote %d, outside its range (stride %d)", s, op.Value, p.Stride)
						}
					}
				}
			}
			q, _ := NewPlan(tc.cfg)
			if !reflect.DeepEqual(p, q) {
				t.Fatal("two plans of one config differ")
			}
			var buf bytes.Buffer
			if err := WritePlan(&buf, p); err != nil {
				t.Fatal(err)
			}
			back, err := ReadPlan(&buf)
			if err != nil {
				t.Fatalf("reading the plan back: %v", err)
			}
			if !reflect.DeepEqual(p, back) {
				t.Fatal("the plan changed through its file")
			}
		})
	}
}

func TestPlanHotspot(t *testing.T) {
	p, err := NewPlan(PlanConfig{Sessions: 4, TxnsPerSession: 250, OpsPerTxn: 10, Keys: 100, Dist: Hotspot})
	if err != nil {
		t.Fatal(err)
	}
	hot, all := 0, 0
	for _, txns := range p.Sessions {
		for _, tx := range txns {
			for _, op := range tx.Ops {
				all++
				if op.Key < 20 {
					hot++
				}
			}
		}
	}
	if f := float64(hot) / float64(all); f < 0.77 || f > 0.83 {
		t.Fatalf("%.3f of operations on the hot 20%% of keys, want about 0.8", f)
	}
}

func TestReadPlanErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "empty plan file"},
		{`{"workload":"general","keys":3,"sessions":[[{"ops":[["r",1]]}]]`, "byte"},
		{`{"workload":"nope","keys":3,"sessions":[[{"ops":[["r",1]]}]]}`, `unknown workload "nope"`},
		{`{"workload":"general","keys":3,"sessions":[[{"ops":[["r",3]]}]]}`, "key 3 is outside [0, 3)"},
		{`{"workload":"general","keys":3,"sessions":[[{"ops":[["w",1,5]]},{"ops":[["w",1,5]]}]]}`, "written to key 1 twice"},
		{`{"workload":"general","keys":3,"sessions":[[{"ops":[["x",1,5]]}]]}`, `unknown operation kind "x"`},
		{`{"workload":"general","keys":3,"sessions":[[{"ops":[["append",1,5]]}]]}`, `"append" operation in a plan of registers`},
		{`{"workload":"general","keys":3,"sessions":[[{"ops":[]}]]}`, "no operation"},
		{`{"workload":"general","keys":3,"extra":1,"sessions":[]}`, "unknown field"},
		{`{"workload":"general","keys":3,"sessions":[]}`, "no session"},
	} {
		_, err := ReadPlan(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadPlan(%.50q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestPlanConfigValidate(t *testing.T) {
	for _, cfg := range []PlanConfig{
		{Sessions: -1},
		{Keys: MaxKeys + 1},
		{Sessions: 1 << 20, TxnsPerSession: 1 << 20},
		{ReadProportion: 2},
		{LongProportion: -0.5},
		{Workload: "nope"},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted it", cfg)
		}
	}
}

func FuzzReadPlan(f *testing.F) {
	f.Add(`{"workload":"general","keys":3,"stride":10,"sessions":[[{"ops":[["r",1],["w",2,11]]}]]}`)
	f.Add(`{"workload":"append","lists":true,"keys":3,"stride":10,"sessions":[[{"ops":[["append",1,11],["r",1]]}]]}`)
	f.Add(`{"workload":"general","keys":3,"stride":10,"sessions":[[{"ops":[["r",1]]}, {"ops":[["w",1,`)
	f.Add(`{"workload":"lwt","keys":3,"sessions":[[{"ops":[["cas",1,11]]}]]} {}`)
	f.Add("{\n \"keys\": 3,\n \"sessions\": [[{\"ops\": [[\"r\", 1]], \"x\": 1}]]\n}")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ReadPlan(strings.NewReader(in))
		if pe, ok := errors.AsType[*PlanError](err); ok && (pe.Offset < 0 || pe.Offset > int64(len(in))) {
			t.Fatalf("error at byte %d of %d: %v", pe.Offset, len(in), err)
		}
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WritePlan(&buf, p); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPlan(&buf); err != nil {
			t.Fatalf("a plan read does not read back: %v", err)
		}
	})
}
