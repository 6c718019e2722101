package jepsen

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/register"
)

// Writing register operations, as Jepsen's register tests record them: for
// each operation its invocation and, unless it is of outcome register.Info,
// its completion (an Info operation is left pending, which the readers take
// as :info), in time order.

// registerEvent is an operation's invocation, or its completion (ret).
type registerEvent struct {
	t   int64
	ret bool
	op  int
}

// registerTimeline returns the invocations and completions of ops in time
// order; Info operations have no completion.
func registerTimeline(ops []register.Op) []registerEvent {
	evs := make([]registerEvent, 0, 2*len(ops))
	for i := range ops {
		evs = append(evs, registerEvent{ops[i].Call, false, i})
		if ops[i].Outcome != register.Info {
			evs = append(evs, registerEvent{ops[i].Return, true, i})
		}
	}
	sortEvents(evs, func(e registerEvent) (int64, bool) { return e.t, e.ret })
	return evs
}

// WriteRegisterJSON writes ops as Jepsen events, one JSON object a line,
// in time order: each operation's invocation and, unless it is Info, its
// completion. Keyed operations carry a "key" field.
func WriteRegisterJSON(w io.Writer, ops []register.Op) error {
	evs := registerTimeline(ops)
	bw := bufio.NewWriter(w)
	for _, e := range evs {
		o := &ops[e.op]
		typ, value := "invoke", ""
		switch o.Kind {
		case register.Read:
			value = "null"
			if e.ret {
				value = registerJSONValue(o.Value)
			}
		case register.Write:
			value = registerJSONValue(o.Value)
		case register.CAS:
			value = "[" + registerJSONValue(o.Old) + "," + registerJSONValue(o.New) + "]"
		}
		if e.ret {
			typ = o.Outcome.String()
		}
		key := ""
		if o.Key != "" {
			k, _ := json.Marshal(o.Key) // a string always encodes
			key = `"key":` + string(k) + ","
		}
		fmt.Fprintf(bw, `{"process":%d,"type":%q,"f":%q,%s"value":%s,"time":%d}`+"\n", o.Process, typ, o.Kind.String(), key, value, e.t)
	}
	return bw.Flush()
}

// WriteRegisterEDN writes ops as a Jepsen history, one event map per line,
// in time order; keyed operations use the independent [key value] form.
func WriteRegisterEDN(w io.Writer, ops []register.Op) error {
	evs := registerTimeline(ops)
	bw := bufio.NewWriter(w)
	for _, e := range evs {
		o := &ops[e.op]
		var value string
		switch o.Kind {
		case register.Read:
			value = "nil"
			if e.ret {
				value = registerEDNValue(o.Value)
			}
		case register.Write:
			value = registerEDNValue(o.Value)
		case register.CAS:
			value = "[" + registerEDNValue(o.Old) + " " + registerEDNValue(o.New) + "]"
		}
		if o.Key != "" {
			value = "[" + string(edn.AppendString(nil, o.Key)) + " " + value + "]"
		}
		typ := "invoke"
		if e.ret {
			typ = o.Outcome.String()
		}
		fmt.Fprintf(bw, "{:type :%s, :f :%s, :value %s, :time %d, :process %d}\n", typ, o.Kind, value, e.t, o.Process)
	}
	return bw.Flush()
}

func registerJSONValue(v int64) string {
	if v == register.Nil {
		return "null"
	}
	return strconv.FormatInt(v, 10)
}

func registerEDNValue(v int64) string {
	if v == register.Nil {
		return "nil"
	}
	return strconv.FormatInt(v, 10)
}

// sortEvents sorts by time, invocations before completions at one instant
// (touching intervals stay concurrent when read back).
func sortEvents[E any](evs []E, key func(E) (int64, bool)) {
	slices.SortStableFunc(evs, func(a, b E) int {
		ta, ra := key(a)
		tb, rb := key(b)
		switch {
		case ta != tb:
			return cmp.Compare(ta, tb)
		case ra == rb:
			return 0
		case !ra:
			return -1
		}
		return 1
	})
}
