package lwt

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/register"
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
func FromRegisterOps(rops []register.Op, fail FailMeaning) []Op {
	ops := make([]Op, 0, len(rops))
	for _, r := range rops {
		if r.Outcome == register.Fail && fail == FailAbsent {
			continue
		}
		o := Op{Process: int(r.Process), Kind: r.Kind, Key: r.Key, Value: r.Value, Old: r.Old, New: r.New,
			Call: r.Call, Return: r.Return, Outcome: r.Outcome, Line: r.Line, RetLine: r.RetLine}
		if r.Process < 0 || int64(int(r.Process)) != r.Process {
			o.Process = -1
		}
		if o.Outcome == register.Info {
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
