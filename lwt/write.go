package lwt

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

// timeline returns the invocations and completions of ops in time order;
// Info operations have no completion.
func timeline(ops []Op) []timelineEvent {
	evs := make([]timelineEvent, 0, 2*len(ops))
	for i := range ops {
		evs = append(evs, timelineEvent{ops[i].Call, false, i})
		if ops[i].Outcome != register.Info {
			evs = append(evs, timelineEvent{ops[i].Return, true, i})
		}
	}
	sortEvents(evs, func(e timelineEvent) (int64, bool) { return e.t, e.ret })
	return evs
}

// WriteJSONL writes ops as native JSONL events in time order: each
// operation's invocation and, unless it is Info, its completion (an Info
// operation is left pending, which readers take as :info).
func WriteJSONL(w io.Writer, ops []Op) error {
	evs := timeline(ops)
	bw := bufio.NewWriter(w)
	for _, e := range evs {
		o := &ops[e.op]
		typ, value := "invoke", ""
		switch o.Kind {
		case register.Read:
			value = "null"
			if e.ret {
				value = jsonValue(o.Value)
			}
		case register.Write:
			value = jsonValue(o.Value)
		case register.CAS:
			value = "[" + jsonValue(o.Old) + "," + jsonValue(o.New) + "]"
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

// WriteEDN writes ops as a Jepsen history, one event map per line, in time
// order; keyed operations use the independent [key value] form.
func WriteEDN(w io.Writer, ops []Op) error {
	evs := timeline(ops)
	bw := bufio.NewWriter(w)
	for _, e := range evs {
		o := &ops[e.op]
		var value string
		switch o.Kind {
		case register.Read:
			value = "nil"
			if e.ret {
				value = ednValue(o.Value)
			}
		case register.Write:
			value = ednValue(o.Value)
		case register.CAS:
			value = "[" + ednValue(o.Old) + " " + ednValue(o.New) + "]"
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

func jsonValue(v int64) string {
	if v == Nil {
		return "null"
	}
	return strconv.FormatInt(v, 10)
}

func ednValue(v int64) string {
	if v == Nil {
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
