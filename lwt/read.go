package lwt

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/edn"
)

// Reading histories.
//
// The readers take their operations from package format
// (format.ReadRegisterOps), which reads the events of Jepsen histories
// (EDN, elle-cli's JSON, and the same as JSON lines) and native JSONL
// histories whose transactions are register operations, as isocheck run
// --workload lwt records them:
//
//	EDN:   {:type :invoke, :f :cas, :value [3 4], :time 9, :process 2}
//	JSONL: {"process":2,"type":"invoke","f":"cas","value":[3,4],"time":9}
//
// JSON lines may also carry "key" instead of Jepsen's independent [key
// value] form. Errors are *format.Error values, which give the file and
// the line.

// FailMeaning says what a failed operation (:fail) of a history means.
type FailMeaning uint8

const (
	// FailAbsent is Jepsen's and Knossos's meaning: a failed operation did
	// not happen, and is left out.
	FailAbsent FailMeaning = iota
	// FailCompared is Porcupine's etcd model: a failed compare-and-set
	// compared and found a value other than Old (an operation of outcome
	// Fail); failed reads and writes are ignored.
	FailCompared
)

func (m FailMeaning) String() string {
	switch m {
	case FailAbsent:
		return "absent"
	case FailCompared:
		return "compared"
	}
	return fmt.Sprintf("FailMeaning(%d)", uint8(m))
}

// ParseFailMeaning returns the FailMeaning named "absent" or "compared".
func ParseFailMeaning(s string) (FailMeaning, error) {
	switch s {
	case "absent":
		return FailAbsent, nil
	case "compared":
		return FailCompared, nil
	}
	return 0, fmt.Errorf("unknown meaning of :fail %q (want absent or compared)", s)
}

// ReadOptions say how to read a history.
type ReadOptions struct {
	// Format is the history's format: format.Auto (the zero value:
	// detect it), format.EDN, format.ElleJSON or format.JSONL.
	Format format.Format
	// Fail is what a failed operation means (FailAbsent by default).
	Fail FailMeaning
}

// ReadFile reads the history in the file at path, detecting its format,
// with failed operations left out (FailAbsent).
func ReadFile(path string) ([]Op, error) {
	ops, _, err := ReadFileContext(context.Background(), path, ReadOptions{})
	return ops, err
}

// ReadFileContext reads the history in the file at path as opts say. It
// reports its progress (in bytes) on a progress.Meter of ctx and stops
// when ctx ends; the error then satisfies progress.Stopped. The file is
// read as a stream, so memory does not grow with its size beyond the
// operations it holds. The Info says what the reader skipped or inferred.
func ReadFileContext(ctx context.Context, path string, opts ReadOptions) ([]Op, *format.Info, error) {
	rops, info, err := format.ReadRegisterOpsFile(ctx, path, formatOf(opts))
	if err != nil {
		return nil, nil, err
	}
	return FromRegisterOps(rops, opts.Fail), info, nil
}

// ReadHistory reads a history from r, detecting its format, with failed
// operations left out; name is used in errors.
func ReadHistory(r io.Reader, name string) ([]Op, error) {
	ops, _, err := ReadHistoryContext(context.Background(), r, name, ReadOptions{})
	return ops, err
}

// ReadHistoryContext is ReadFileContext on a stream.
func ReadHistoryContext(ctx context.Context, r io.Reader, name string, opts ReadOptions) ([]Op, *format.Info, error) {
	rops, info, err := format.ReadRegisterOps(ctx, r, name, formatOf(opts))
	if err != nil {
		return nil, nil, err
	}
	return FromRegisterOps(rops, opts.Fail), info, nil
}

// ReadBytes is ReadHistory on a byte slice.
func ReadBytes(data []byte, name string) ([]Op, error) {
	return ReadHistory(bytes.NewReader(data), name)
}

func formatOf(opts ReadOptions) format.Format {
	if opts.Format == "" {
		return format.Auto
	}
	return opts.Format
}

// FromRegisterOps returns the operations of rops, failed ones left out
// (FailAbsent) or kept as Fail (FailCompared). Operations without a
// process get Process -1; those without an invocation Call math.MinInt64
// (format.NoCall): they may have been invoked any time before they
// returned.
func FromRegisterOps(rops []format.RegisterOp, fail FailMeaning) []Op {
	ops := make([]Op, 0, len(rops))
	for _, r := range rops {
		if r.Outcome == format.OutcomeFail && fail == FailAbsent {
			continue
		}
		o := Op{Process: int(r.Process), Kind: r.Kind, Key: r.Key, Value: r.Value, Old: r.Old, New: r.New,
			Call: r.Call, Return: r.Return, Outcome: r.Outcome, Line: r.Line, RetLine: r.RetLine}
		if r.Process < 0 || int64(int(r.Process)) != r.Process {
			o.Process = -1
		}
		if o.Outcome == format.OutcomeInfo {
			o.Return = Never
		}
		ops = append(ops, o)
	}
	return ops
}

// timelineEvent is an operation's invocation, or its completion (ret).
type timelineEvent struct {
	t   int64
	ret bool
	op  int
}

// timeline returns the invocations and completions of ops in time order;
// Info operations have no completion.
func timeline(ops []Op) []timelineEvent {
	evs := make([]timelineEvent, 0, 2*len(ops))
	for i := range ops {
		evs = append(evs, timelineEvent{ops[i].Call, false, i})
		if ops[i].Outcome != format.OutcomeInfo {
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
		case format.RegisterRead:
			value = "null"
			if e.ret {
				value = jsonValue(o.Value)
			}
		case format.RegisterWrite:
			value = jsonValue(o.Value)
		case format.RegisterCAS:
			value = "[" + jsonValue(o.Old) + "," + jsonValue(o.New) + "]"
		}
		if e.ret {
			typ = o.Outcome.String()
		}
		key := ""
		if o.Key != "" {
			key = `"key":` + strconv.Quote(o.Key) + ","
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
		case format.RegisterRead:
			value = "nil"
			if e.ret {
				value = ednValue(o.Value)
			}
		case format.RegisterWrite:
			value = ednValue(o.Value)
		case format.RegisterCAS:
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
