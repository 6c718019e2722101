package interpret

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// describer puts the edges of a polygraph into words.
type describer struct {
	p *polygraph.Polygraph
	h *history.History
	// weakerKept says that every level weaker than level is kept (but
	// for one without a verdict), so a cycle is named by what level
	// alone forbids (Name), not by its shape alone (ShapeName).
	weakerKept bool
	// why holds the reasons of inferred edges; nil when only the
	// checker's evidence is known (no reasons beyond the data).
	why map[edgeID]*inference
	// readFrom maps (transaction, key) to the node the transaction read
	// the key from before writing it, when full.
	readFrom map[txnKey]int32
	full     bool
	// writers indexes the writes of the history, built when first
	// needed (see writerOf).
	writers *shrink.Writes
	picked  map[pickedRead]int32
	// names are the report's names of its transactions (see Report).
	names map[int32]string
	// lists, set for a history of lists, finds the lists read.
	lists *listSource
	// level is the level checked (for Elle's names of PC's evidence).
	level level.Level
}

type txnKey struct {
	t int32
	k history.Key
}

func newDescriber(p *polygraph.Polygraph, why map[edgeID]*inference, full bool, names map[int32]string) *describer {
	d := &describer{p: p, h: p.History, why: why, full: full, names: names}
	if full {
		d.readFrom = make(map[txnKey]int32)
		h := p.History
		writer := make(map[[2]int64]int32)
		for t := range h.Txns {
			for _, op := range h.OpsOf(t) {
				if op.Kind == history.Write {
					writer[[2]int64{int64(op.Key), int64(op.Value)}] = int32(t)
				}
			}
		}
		for t := range h.Txns {
			seen := map[history.Key]bool{}
			for _, op := range h.OpsOf(t) {
				if seen[op.Key] {
					continue
				}
				seen[op.Key] = true
				if op.Kind == history.Write {
					continue
				}
				w := p.T0
				if op.Value != h.Init {
					var ok bool
					if w, ok = writer[[2]int64{int64(op.Key), int64(op.Value)}]; !ok {
						continue
					}
				}
				d.readFrom[txnKey{int32(t), op.Key}] = w
			}
		}
	}
	return d
}

// name returns the report's name of node u: a transaction's name (see
// Report), "init" for the initial state, "time t" for a time node.
func (d *describer) name(u int32) string {
	switch {
	case u == d.p.T0:
		return "init"
	case !d.p.IsTxn(u):
		return d.p.NodeName(u)
	}
	if n, ok := d.names[u]; ok {
		return n
	}
	return baseName(d.h, int(u))
}

// baseName is transaction t's name before the report makes names unique:
// its id, with a T in front of an id of digits, or T<index> without one.
func baseName(h *history.History, t int) string {
	id := h.Txns[t].ID
	switch {
	case id == "":
		return "T" + strconv.Itoa(t)
	case isDigits(id):
		return "T" + id
	}
	return id
}

// nameTxns names the transactions txns of h as a report does (see
// Report): unique among them, and none "init". index gives a
// transaction's index in the input (nil: its index in h).
func nameTxns(h *history.History, txns []int32, index func(int32) int) map[int32]string {
	if index == nil {
		index = func(t int32) int { return int(t) }
	}
	count := make(map[string]int, len(txns))
	for _, t := range txns {
		count[baseName(h, int(t))]++
	}
	names := make(map[int32]string, len(txns))
	for _, t := range txns {
		n := baseName(h, int(t))
		if n == "init" || count[n] > 1 {
			suffixed := n + "#" + strconv.Itoa(index(t))
			for count[suffixed] > 0 {
				suffixed += "#"
			}
			count[suffixed]++
			n = suffixed
		}
		names[t] = n
	}
	return names
}

// isDigits reports whether s is a non-empty string of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// keyName is a key's name in sentences: "key 7" for numeric keys.
func (d *describer) keyName(k history.Key) string {
	return keyWord(verdict.ID(d.h.FormatKey(k)))
}

func (d *describer) isTime(u int32) bool { return !d.p.IsTxn(u) && u != d.p.T0 }

// fold rotates a cycle to start at a transaction and merges paths through
// time nodes into one real-time edge.
func (d *describer) fold(edges []polygraph.Edge, closed bool) []polygraph.Edge {
	start := 0
	if closed {
		for i, e := range edges {
			if !d.isTime(e.From) {
				start = i
				break
			}
		}
	}
	rotated := append(slices.Clone(edges[start:]), edges[:start]...)
	var out []polygraph.Edge
	for i := 0; i < len(rotated); i++ {
		e := rotated[i]
		for d.isTime(e.To) && i+1 < len(rotated) {
			i++
			e.To = rotated[i].To
		}
		out = append(out, e)
	}
	return out
}

// cycle explains a cycle's edges, folding time paths; txns collects its
// transactions.
func (d *describer) cycle(edges []polygraph.Edge, txns map[int32]bool) []Step {
	var steps []Step
	for _, e := range d.fold(edges, true) {
		for _, t := range []int32{e.From, e.To} {
			if d.p.IsTxn(t) && txns != nil {
				txns[t] = true
			}
		}
		steps = append(steps, d.step(e, true))
	}
	return steps
}

// path writes a cycle compactly: "A -WW x-> B -RW x-> A".
func (d *describer) path(edges []polygraph.Edge) string {
	f := d.fold(edges, true)
	if len(f) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(d.name(f[0].From))
	for _, e := range f {
		if e.Key != polygraph.NoKey {
			fmt.Fprintf(&b, " -%s %s-> %s", e.Kind, d.h.FormatKey(e.Key), d.name(e.To))
		} else {
			fmt.Fprintf(&b, " -%s-> %s", e.Kind, d.name(e.To))
		}
	}
	return b.String()
}

// step explains one edge; withWhy adds the reasoning of inferred edges.
func (d *describer) step(e polygraph.Edge, withWhy bool) Step {
	h, p := d.h, d.p
	s := Step{From: d.name(e.From), To: d.name(e.To), Kind: e.Kind.String()}
	from, to := d.name(e.From), d.name(e.To)
	var x string
	if e.Key != polygraph.NoKey {
		s.Key = verdict.ID(h.FormatKey(e.Key))
		x = d.keyName(e.Key)
	}
	switch e.Kind {
	case verdict.SO:
		if e.From == p.T0 {
			s.Reason = fmt.Sprintf("the initial state precedes %s", to)
		} else {
			s.Reason = fmt.Sprintf("%s precedes %s in session %s", from, to, h.SessionName(int(h.Txns[e.From].Session)))
		}
	case verdict.WR:
		s.FromValue = d.written(e.From, e.Key)
		s.ToValue = s.FromValue
		if e.From == p.T0 {
			s.Reason = fmt.Sprintf("%s read the initial %s=%s", to, x, s.FromValue)
		} else {
			s.Reason = fmt.Sprintf("%s read %s=%s written by %s", to, x, s.FromValue, from)
		}
	case verdict.WW:
		s.FromValue, s.ToValue = d.written(e.From, e.Key), d.written(e.To, e.Key)
		switch src, ok := d.readFrom[txnKey{e.To, e.Key}]; {
		case e.From == p.T0:
			s.Reason = fmt.Sprintf("%s overwrote the initial %s=%s with %s", to, x, s.FromValue, s.ToValue)
		case d.full && ok && src == e.From:
			s.Reason = fmt.Sprintf("%s read %s=%s written by %s and overwrote it with %s", to, x, s.FromValue, from, s.ToValue)
		default:
			s.Reason = fmt.Sprintf("%s's %s=%s was overwritten by %s's %s=%s", from, x, s.FromValue, to, x, s.ToValue)
			if withWhy {
				d.because(&s, e, e.From)
			}
		}
	case verdict.RW:
		var src int32
		var ok bool
		s.FromValue, src, ok = d.overwrittenRead(e.From, e.Key, e.To)
		s.ToValue = d.written(e.To, e.Key)
		ok = ok && d.full
		s.Reason = fmt.Sprintf("%s read %s=%s, which %s overwrote with %s", from, x, s.FromValue, to, s.ToValue)
		if d.full && ok && src != p.T0 {
			s.Reason = fmt.Sprintf("%s read %s=%s (written by %s), which %s overwrote with %s", from, x, s.FromValue, d.name(src), to, s.ToValue)
		}
		if osrc, ook := d.readFrom[txnKey{e.To, e.Key}]; d.full && ok && (src == p.T0 || ook && osrc == src) {
			break // To overwrote the initial value, or updated the version From read
		}
		if withWhy && ok {
			d.because(&s, e, src)
		}
	case verdict.RT:
		s.Reason = fmt.Sprintf("%s ended (at %d) before %s started (at %d)", from, h.Txns[e.From].End, to, h.Txns[e.To].Start)
	}
	if d.lists != nil {
		if r := d.listReason(e, s); r != "" {
			s.Reason = r
		}
	}
	return s
}

// listReason says why a dependency of a history of lists holds, in terms
// of appends and the lists read, or returns "".
func (d *describer) listReason(e polygraph.Edge, s Step) string {
	from, to := d.name(e.From), d.name(e.To)
	x := d.keyName(e.Key)
	switch e.Kind {
	case verdict.WR:
		l, ok := d.lists.firstRead(e.To, e.Key)
		switch {
		case !ok:
		case e.From == d.p.T0:
			return fmt.Sprintf("%s read %s=%s, the initial list", to, x, l)
		default:
			return fmt.Sprintf("%s read %s=%s, ending in %s's append of %s", to, x, l, from, s.FromValue)
		}
	case verdict.WW:
		if e.From == d.p.T0 {
			return fmt.Sprintf("%s appended %s to the initial %s", to, s.ToValue, x)
		}
		return fmt.Sprintf("%s appended %s to %s after %s's append of %s", to, s.ToValue, x, from, s.FromValue)
	case verdict.RW:
		if l, ok := d.lists.firstRead(e.From, e.Key); ok {
			return fmt.Sprintf("%s read %s=%s, without %s's append of %s", from, x, l, to, s.ToValue)
		}
	}
	return ""
}

// listAt returns the list read by operation op of a history of lists.
func (d *describer) listAt(op int32) (Value, bool) {
	if d.lists == nil || op < 0 || int(op) >= len(d.h.Ops) || d.h.Ops[op].Kind != history.Read {
		return Value{}, false
	}
	v := d.lists.op(op).Value
	return v, v.Kind() == KindList
}

// direct reports whether the history shows e without any order of writes
// being chosen (when d is full): a read, session order or real time, a
// write after the version its writer's chain of read-modify-writes
// started from, or an anti-dependency from a read of such a version.
func (d *describer) direct(e polygraph.Edge) bool {
	switch e.Kind {
	case verdict.WW:
		return e.From == d.p.T0 || d.follows(e.To, e.From, e.Key)
	case verdict.RW:
		src, ok := d.readFrom[txnKey{e.From, e.Key}]
		return ok && (src == d.p.T0 || d.follows(e.To, src, e.Key))
	}
	return true
}

// follows reports whether transaction t's write of key follows w's in a
// chain of read-modify-writes: t read w's version, or the version of a
// writer that did, and so on.
func (d *describer) follows(t, w int32, key history.Key) bool {
	for range len(d.h.Txns) {
		src, ok := d.readFrom[txnKey{t, key}]
		switch {
		case !ok:
			return false
		case src == w:
			return true
		case !d.p.IsTxn(src):
			return false
		}
		t = src
	}
	return false
}

// because fills in why an edge inferred from the order of e.Key's writes
// holds: writer's version of the key precedes e.To's.
func (d *describer) because(s *Step, e polygraph.Edge, writer int32) {
	if !d.full {
		return
	}
	x := d.keyName(e.Key)
	w, to := d.name(writer), d.name(e.To)
	inf := d.why[idOf(e)]
	switch {
	case inf != nil && inf.Checker:
		s.Inferred = true
		s.Because = d.levelRule(e, writer)
	case inf != nil && inf.Solver:
		s.Inferred, s.Assumed = true, true
		s.Because = fmt.Sprintf("one order of the writes of %s the solver had to pick: every order closes one of the cycles shown", x)
	case inf != nil:
		s.Inferred = true
		s.Because = fmt.Sprintf("%s's write of %s must come before %s's: the other order would close the cycle %s", w, x, to, d.path(inf.Cycle))
		for _, ce := range d.fold(inf.Cycle, true) {
			s.BecauseCycle = append(s.BecauseCycle, d.step(ce, false))
		}
	default:
		// Build's rule: the read-modify-write chain that starts from the
		// initial value precedes every write that read none of it.
		head := d.chainHead(e.Key)
		if head < 0 {
			return
		}
		s.Inferred = true
		h := d.name(head)
		s.Because = fmt.Sprintf("%s did not read %s, and the writes of %s from the initial value up to %s's each read the one before: %s's write among them would lose an update (%s -WW %s-> %s -RW %s-> %s)",
			to, x, x, w, to, to, x, h, x, to)
		s.BecauseCycle = []Step{
			{From: d.name(e.To), To: d.name(head), Kind: "WW", Key: verdict.ID(d.h.FormatKey(e.Key)), Reason: fmt.Sprintf("if %s's %s=%s came before %s's %s=%s", to, x, d.written(e.To, e.Key), h, x, d.written(head, e.Key))},
			{From: d.name(head), To: d.name(e.To), Kind: "RW", Key: verdict.ID(d.h.FormatKey(e.Key)), Reason: fmt.Sprintf("%s read the initial %s, which %s would then have overwritten", h, x, to)},
		}
	}
}

// nameOf names a cycle at d.level: by the rule that broke, when the
// weaker levels are known kept, else by its shape.
func (d *describer) nameOf(c []polygraph.Edge) verdict.Anomaly {
	if d.weakerKept {
		return Name(c, d.level)
	}
	return ShapeName(c, d.level)
}

// cycleClaim says what a cycle c of dependencies rests on: "a cycle of N
// dependencies that every order of the writes has" when the history shows
// each of them whatever the order of its writes, else how many of them
// the check derived and from what (see derived). steps, when set, are c's
// steps as the report shows them, whose Inferred marks count.
func (d *describer) cycleClaim(c []polygraph.Edge, steps []Step) string {
	n := -1 // not counted
	switch {
	case d.full && steps != nil:
		n = 0
		for _, s := range steps {
			if s.Inferred {
				n++
			}
		}
	case (d.level == level.SER || d.level == level.SI || d.level == level.SSER) && len(d.p.Known) > 0:
		n = d.derived(c)
	}
	switch n {
	case 0:
		return fmt.Sprintf("a cycle of %d dependencies that every order of the writes has", len(c))
	case -1:
		return fmt.Sprintf("a cycle of %d dependencies that checking %s derived from %s", len(c), d.level, derivedFrom(d.level))
	}
	return fmt.Sprintf("a cycle of %d dependencies, %d of them derived by checking %s from %s", len(c), n, d.level, derivedFrom(d.level))
}

// derived counts the edges of c that the history does not show directly
// but the check derived, those not among the polygraph's known
// dependencies (the reads, session order, real time and the orders of
// writes the reads reveal), at SER, SI and SSER, whose polygraph keeps
// them.
func (d *describer) derived(c []polygraph.Edge) int {
	ids := make(map[edgeID]bool, len(c))
	for _, e := range c {
		if (e.Kind == verdict.WW || e.Kind == verdict.RW) && e.From != d.p.T0 {
			ids[idOf(e)] = true
		}
	}
	for _, e := range d.p.Known {
		delete(ids, idOf(e))
	}
	return len(ids)
}

// derivedFrom says, in a phrase, what the check of l derives orders of
// writes from.
func derivedFrom(l level.Level) string {
	switch l {
	case level.SSER:
		return "the reads and real time (a transaction that ended before another began comes first): the other orders of those writes close a cycle too"
	case level.SI:
		return "the reads and snapshot isolation's rules (a transaction sees a snapshot, and two that write a key do not overlap): the other orders of those writes close a cycle too"
	case level.SER:
		return "the reads: the other orders of those writes close a cycle too"
	case level.PC:
		return "prefix consistency's rule that every transaction sees a prefix of one order of the commits"
	case level.CC:
		return "causal consistency's rule that a transaction sees every write causally before it"
	case level.RA:
		return "read atomic's rule that a transaction that sees one write of another sees all of them"
	}
	return "read committed's rule that a transaction's reads do not go back in the order of commits"
}

// levelRule says, in the terms of the level checked, why the order of
// writes an edge e stands for holds: writer's version of e.Key precedes
// e.To's. For an anti-dependency R -RW-> W at RC, RA and CC it is the
// level's axiom: W's write was visible to R (the rest of the cycle shows
// how), so R may not read a version older than W's.
func (d *describer) levelRule(e polygraph.Edge, writer int32) string {
	x := d.keyName(e.Key)
	w, to := d.name(writer), d.name(e.To)
	if e.Kind == verdict.RW {
		r := d.name(e.From)
		switch d.level {
		case level.RC:
			return fmt.Sprintf("%s had already read a write of %s's when it read %s, so read committed requires it to read %s's version of %s or a newer one: %s's version, which it read, must be the older", r, to, x, to, x, w)
		case level.RA:
			return fmt.Sprintf("%s read a write of %s's or follows it in its session, so read atomic requires it to see all of %s's writes, %s's included: %s's version, which it read, must be the older", r, to, to, x, w)
		case level.CC:
			return fmt.Sprintf("%s's writes causally precede %s, so causal consistency requires %s to see %s's version of %s or a newer one: %s's version, which it read, must be the older", to, r, r, to, x, w)
		}
	}
	return fmt.Sprintf("%s's write of %s must come before %s's: checking %s derived that order from %s, and the other order violates %s as well", w, x, to, d.level, ruleOf(d.level), d.level)
}

// ruleOf names, in a phrase, what the check of l derives an order of
// writes from, for the transactions shown.
func ruleOf(l level.Level) string {
	switch l {
	case level.SSER:
		return "the reads and the real-time order of the transactions shown"
	case level.SI:
		return "the reads of the transactions shown and snapshot isolation's rules (a snapshot per transaction; no two overlapping writers of a key)"
	case level.PC:
		return "the reads of the transactions shown and prefix consistency's rule (each transaction sees a prefix of one order of the commits)"
	}
	return "the reads of the transactions shown"
}

// chainHead returns the first transaction that read key's initial value
// and wrote the key, or -1.
func (d *describer) chainHead(key history.Key) int32 {
	for t := range d.h.Txns {
		if src, ok := d.readFrom[txnKey{int32(t), key}]; ok && src == d.p.T0 && !d.written(int32(t), key).IsZero() {
			return int32(t)
		}
	}
	return -1
}

// written returns the value node u last wrote to key, or no value.
func (d *describer) written(u int32, key history.Key) Value {
	if !d.p.IsTxn(u) {
		return valueOf(d.h, d.h.Init)
	}
	ops := d.h.OpsOf(int(u))
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Kind == history.Write && ops[i].Key == key {
			return valueOf(d.h, ops[i].Value)
		}
	}
	return Value{}
}

// overwrittenRead returns the read of key by transaction u that an
// anti-dependency u -RW-> w stands for: the read of a version other than
// w's, before u wrote key, that w overwrote. Where u read key more than
// once (which only RC allows), it is a read after u had seen one of w's
// writes, the read RC's axiom speaks of: of a version the history shows
// older than w's if there is one, else the first; without such reads,
// the first read of key. It returns the value read and its writer (the initial
// state's node for the initial value); ok is false when the writer is
// unknown or u has no such read.
func (d *describer) overwrittenRead(u int32, key history.Key, w int32) (v Value, src int32, ok bool) {
	h := d.h
	if !d.p.IsTxn(u) {
		return valueOf(h, h.Init), d.p.T0, false
	}
	sawW := false
	var first, afterW *history.Op
	for _, op := range h.OpsOf(int(u)) {
		if op.Kind == history.Write {
			if op.Key == key {
				break
			}
			continue
		}
		writer, known := d.writerOf(u, op.Key, op.Value)
		if known && writer == w {
			sawW = true
			continue
		}
		if op.Key != key {
			continue
		}
		if first == nil {
			first = &op
		}
		if sawW && afterW == nil {
			afterW = &op
		}
		if sawW && known && d.precedes(writer, w) {
			// A version the history itself shows older than w's.
			afterW = &op
			break
		}
	}
	if afterW != nil {
		first = afterW
	}
	if first == nil {
		return Value{}, -1, false
	}
	src, ok = d.writerOf(u, key, first.Value)
	return valueOf(h, first.Value), src, ok
}

// precedes reports whether the history shows node a before transaction
// b by itself: a is the initial state, precedes b in its session, or
// wrote a value b read.
func (d *describer) precedes(a, b int32) bool {
	h := d.h
	switch {
	case a == d.p.T0:
		return true
	case !d.p.IsTxn(a) || !d.p.IsTxn(b):
		return false
	case h.Txns[a].Session == h.Txns[b].Session:
		return slices.Index(h.Sessions[h.Txns[a].Session], a) < slices.Index(h.Sessions[h.Txns[b].Session], b)
	}
	for _, op := range h.OpsOf(int(b)) {
		if t, ok := d.writerOf(b, op.Key, op.Value); op.Kind == history.Read && ok && t == a {
			return true
		}
	}
	return false
}

// writerOf returns the node that transaction reader's read of value from
// key read from: the writer the check chose for it, when values repeat
// (Polygraph.Picks); else a transaction other than reader that wrote
// value to key, the initial state for the initial value, or ok false for
// a value no other transaction of the history wrote.
func (d *describer) writerOf(reader int32, key history.Key, value history.Value) (int32, bool) {
	if d.writers == nil {
		d.writers = shrink.NewWrites(d.h)
		d.picked = make(map[pickedRead]int32, len(d.p.Picks))
		for _, p := range d.p.Picks {
			op := d.h.Ops[p.Op]
			d.picked[pickedRead{readerOf(d.h, p.Op), op.Key, op.Value}] = p.Writer
		}
	}
	if w, ok := d.picked[pickedRead{reader, key, value}]; ok {
		return w, true
	}
	if value == d.h.Init {
		return d.p.T0, true
	}
	for _, w := range d.writers.Of(key, value) {
		if w.Txn != reader {
			return w.Txn, true
		}
	}
	return -1, false
}

// shareWriters lets d use the index of the writes of other, a describer
// of the same polygraph, rather than build its own.
func (d *describer) shareWriters(other *describer) {
	if other.p == d.p && d.writers == nil {
		d.writers, d.picked = other.writers, other.picked
	}
}

// pickedRead is a read whose writer the check chose: its transaction,
// key and value.
type pickedRead struct {
	txn   int32
	key   history.Key
	value history.Value
}

// readerOf returns the transaction of operation op.
func readerOf(h *history.History, op int32) int32 {
	t, _ := slices.BinarySearchFunc(h.Txns, op, func(tx history.Txn, op int32) int {
		return cmp.Compare(tx.OpEnd-1, op)
	})
	return int32(t)
}

// anomaly describes a non-cycle anomaly in a sentence.
func (d *describer) anomaly(a resolve.Anomaly) string {
	h := d.h
	reader := d.name(a.Txn)
	kv := fmt.Sprintf("%s=%s", d.keyName(a.Key), valueOf(h, a.Value))
	writer := func() string {
		if d.p.IsTxn(a.Writer) {
			return d.name(a.Writer)
		}
		return "the initial state"
	}
	if a.Txn < 0 {
		return d.statedAnomaly(a)
	}
	if l, ok := d.listAt(a.Op); ok {
		if r := d.listAnomaly(a, l); r != "" {
			return r
		}
	}
	switch a.Kind {
	case verdict.ThinAirRead:
		return fmt.Sprintf("%s read %s, a value no transaction wrote", reader, kv)
	case verdict.AbortedRead:
		did := "aborted"
		if h.Txns[a.Writer].Status == history.RolledBack {
			did = "was rolled back"
		}
		return fmt.Sprintf("%s read %s, written by %s, which %s", reader, kv, writer(), did)
	case verdict.FutureRead:
		return fmt.Sprintf("%s read %s before writing that value itself", reader, kv)
	case verdict.NotMyOwnWrite:
		if d.p.IsTxn(a.Writer) {
			return fmt.Sprintf("%s wrote %s and then read %s, written by %s", reader, d.keyName(a.Key), kv, writer())
		}
		return fmt.Sprintf("%s wrote %s and then read %s, which it did not write", reader, d.keyName(a.Key), kv)
	case verdict.NotMyLastWrite:
		return fmt.Sprintf("%s read %s, its own earlier write, after overwriting it", reader, kv)
	case verdict.IntermediateRead:
		return fmt.Sprintf("%s read %s, which %s overwrote before committing", reader, kv, writer())
	case verdict.NonRepeatableRead:
		return fmt.Sprintf("%s read %s twice and got different values (the second %s)", reader, d.keyName(a.Key), kv)
	case verdict.LostUpdate:
		x := d.keyName(a.Key)
		first, second := d.name(a.OtherTxn), reader
		return fmt.Sprintf("%s and %s both read %s=%s from %s and both wrote %s (%s and %s): whichever wrote second overwrote an update it never saw, so one update is lost",
			first, second, x, d.written(a.Writer, a.Key), d.describeNode(a.Writer), x,
			d.written(a.OtherTxn, a.Key), d.written(a.Txn, a.Key))
	}
	return a.Kind.String()
}

// statedAnomaly describes an anomaly of the version order the history
// states (Anomaly.Txn -1): it says the database installed versions no
// execution can have installed.
func (d *describer) statedAnomaly(a resolve.Anomaly) string {
	h := d.h
	order := fmt.Sprintf("the version order the history states for %s", d.keyName(a.Key))
	v := valueOf(h, a.Value)
	switch a.Kind {
	case verdict.ThinAirRead:
		return fmt.Sprintf("%s lists %s, which no transaction wrote", order, v)
	case verdict.AbortedRead:
		return fmt.Sprintf("%s lists %s, written by %s, which %s", order, v, d.name(a.Writer), h.Txns[a.Writer].Status)
	case verdict.IntermediateRead:
		return fmt.Sprintf("%s ends at %s, which %s overwrote before committing: a state of %s no transaction committed", order, v, d.name(a.Writer), d.keyName(a.Key))
	case verdict.DuplicateElements:
		return fmt.Sprintf("%s lists %s twice", order, v)
	case verdict.SplitAppends:
		return fmt.Sprintf("%s shows %s's writes of %s other than together and in program order (at %s)", order, d.name(a.Writer), d.keyName(a.Key), v)
	}
	return fmt.Sprintf("%s: %v", order, a.Kind)
}

func (d *describer) describeNode(u int32) string {
	if u == d.p.T0 {
		return "the initial state"
	}
	return d.name(u)
}

// listAnomaly describes an anomaly of a read of list l, or returns "".
func (d *describer) listAnomaly(a resolve.Anomaly, l Value) string {
	h := d.h
	reader := d.name(a.Txn)
	x := d.keyName(a.Key)
	xl := fmt.Sprintf("%s=%s", x, l)
	elem := valueOf(h, a.Value)
	writer := "the initial state"
	if d.p.IsTxn(a.Writer) {
		writer = d.name(a.Writer)
	}
	switch a.Kind {
	case verdict.ThinAirRead:
		return fmt.Sprintf("%s read %s, whose element %s no transaction appended", reader, xl, elem)
	case verdict.AbortedRead:
		return fmt.Sprintf("%s read %s, whose element %s was appended by %s, which %s", reader, xl, elem, writer, h.Txns[a.Writer].Status)
	case verdict.IntermediateRead:
		return fmt.Sprintf("%s read %s, ending in %s's append of %s, which %s followed with another append to %s before committing", reader, xl, writer, elem, writer, x)
	case verdict.FutureRead:
		return fmt.Sprintf("%s read %s, which holds %s, an element it appends only later", reader, xl, elem)
	case verdict.NotMyOwnWrite:
		return fmt.Sprintf("%s appended to %s and then read %s, which does not end with its own append", reader, x, xl)
	case verdict.NonRepeatableRead:
		return fmt.Sprintf("%s read %s twice and got different lists (the second %s)", reader, x, l)
	case verdict.DuplicateElements:
		return fmt.Sprintf("%s read %s, which holds %s more than once", reader, xl, elem)
	case verdict.IncompatibleOrder:
		if other, ok := d.listAt(a.OtherOp); ok {
			return fmt.Sprintf("%s read %s and %s read %s=%s: neither list is a prefix of the other, so no order of the appends explains both",
				reader, xl, d.name(txnOfOp(h, a.OtherOp)), x, other)
		}
		for _, o := range h.Orders {
			if o.Key == a.Key {
				return fmt.Sprintf("%s read %s, which is not a prefix of the order of the appends the history states, %s", reader, xl, listOf(h, o.Values))
			}
		}
	case verdict.SplitAppends:
		var own []Value
		for _, op := range h.OpsOf(int(a.Writer)) {
			if op.Kind == history.Write && op.Key == a.Key {
				own = append(own, valueOf(h, op.Value))
			}
		}
		if steps := splitCycle(h, a, nil); len(steps) > 1 {
			in := map[history.Value]bool{}
			for _, v := range h.ListOf(a.Op) {
				in[v] = true
			}
			first, last := steps[0], steps[len(steps)-1]
			var others []string
			for _, st := range steps[:len(steps)-1] {
				others = append(others, fmt.Sprintf("%s's append of %s", d.name(st.To), valueOf(h, st.Next)))
			}
			between := strings.Join(others, ", then ")
			if !in[last.Next] {
				return fmt.Sprintf("%s read %s: %s came after %s's append of %s, before its append of %s, which the list lacks",
					reader, xl, between, writer, valueOf(h, first.Value), valueOf(h, last.Next))
			}
			return fmt.Sprintf("%s read %s: %s came between %s's appends of %s and %s",
				reader, xl, between, writer, valueOf(h, first.Value), valueOf(h, last.Next))
		}
		var present []Value
		writers := writersOf(h, a.Key)
		for _, v := range h.ListOf(a.Op) {
			if w, ok := writers[v]; ok && w == a.Writer {
				present = append(present, valueOf(h, v))
			}
		}
		if len(present) < len(own) {
			return fmt.Sprintf("%s read %s, which holds only %s of %s's appends to %s, %s", reader, xl, ListValue(present), writer, x, ListValue(own))
		}
		return fmt.Sprintf("%s read %s, which holds %s's appends to %s, %s, out of program order", reader, xl, writer, x, ListValue(own))
	}
	return ""
}
