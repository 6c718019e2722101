package jepsen_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

// fuzzJepsen reads data in f; what it reads must write and read back as
// itself, in both Jepsen formats.
func fuzzJepsen(t *testing.T, data []byte, f format.Format) {
	h, err := format.Read(bytes.NewReader(data), "fuzz", f)
	if err != nil {
		if e := formattest.CheckError(t, err); e.Line < 1 && e.Offset < 0 {
			t.Fatalf("error without a position: %v", err)
		}
		return
	}
	formattest.CheckConsistent(t, h)
	// The sessions of events without :process are written as processes
	// of their own, named as the writer names them.
	for i, p := range scan.IntegerNames(h.SessionNames, len(h.Sessions)) {
		h.SessionNames[i] = strconv.FormatInt(p, 10)
	}
	for _, to := range []format.Format{format.EDN, format.ElleJSON} {
		var out bytes.Buffer
		if err := format.Write(&out, h, to); err != nil {
			t.Fatalf("Write %s: %v", to, err)
		}
		h2, err := format.Read(bytes.NewReader(out.Bytes()), "fuzz", to)
		if err != nil {
			t.Fatalf("reading back %s %q: %v", to, out.Bytes(), err)
		}
		if !sameIDs(h) {
			clearIDs(h)
			clearIDs(h2)
		}
		if !formattest.SameHistory(h, h2) || formattest.Jdump(h, false) != formattest.Jdump(h2, false) {
			t.Fatalf("round trip through %s changed the history:\n%s\nto\n%s\n%s", to, formattest.Jdump(h, false), formattest.Jdump(h2, false), out.Bytes())
		}
	}
}

// sameIDs reports whether the writers keep the ids of h: all of them
// given, or none.
func sameIDs(h *history.History) bool {
	n := 0
	for _, tx := range h.Txns {
		if tx.ID != "" {
			n++
		}
	}
	return n == 0 || n == len(h.Txns)
}

func clearIDs(h *history.History) {
	for i := range h.Txns {
		h.Txns[i].ID = ""
	}
}

func FuzzEDN(f *testing.F) {
	f.Add([]byte(ednRegister))
	f.Add([]byte(ednList))
	f.Add([]byte(`{:type :invoke, :value [[:w "a b" "x\"y"] [:w :k/ns :kw] [:w 12345678901234567890 -99999999999999999999]], :process -3}
{:type :ok, :value [[:w "a b" "x\"y"] [:w :k/ns :kw] [:w 12345678901234567890 -99999999999999999999]], :process -3, :time 5}
{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 4} #_ {:type :invoke}
(#jepsen.history.Op{:type :fail, :f :txn, :value nil, :process 1, :index 9})`))
	f.Add([]byte(`{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 10}
{:type :info, :f :start-partition, :value nil, :process :nemesis, :time 25}
{:type :info, :f :start-partition, :value [:isolated {"n1" #{"n2" "n3"}} (1 2) \a], :process :nemesis, :time 30}
{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 40}`))
	formattest.AddCorpusSeed(f, 4096, "elle-list-append", "sess2__history0.edn")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzJepsen(t, data, format.EDN)
	})
}

func FuzzElleJSON(f *testing.F) {
	f.Add([]byte(elleJSONList))
	f.Add([]byte(`{"type": "invoke", "f": "txn", "value": [["w", "x", 2]], "process": 0, "index": 1}
{"type": "ok", "f": "txn", "value": [["w", "x", 2]], "process": 0, "index": 2}
{"type": "invoke", "value": [["r", "x", null], ["w", 1e3, 1]], "process": "nemesis"}
{"type": "info", "value": [["w", "y", 18446744073709551616]], "process": 1, "time": 3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzJepsen(t, data, format.ElleJSON)
	})
}
