package sqlhistory

// EventRef names event Event of transaction Txn.
type EventRef struct {
	Txn, Event int
}

// WithoutReads returns the history h in which the read events in cut
// read nothing: a Select is left out, and an Update or a Delete becomes
// an Insert of the versions it wrote (a blind write, which neither reads
// the row it replaces nor evaluates a predicate). Every transaction keeps
// its index; versions keep their names, and Version.Event follows the
// events that move. Events of cut that read nothing are ignored.
//
// Dropping a read only removes constraints: the read's own (the versions
// it returned, the rows it rejected) and the axioms' premises built from
// what it read. So a history that violates a level without the reads
// violates it with them.
func (h *History) WithoutReads(cut map[EventRef]bool) *History {
	if len(cut) == 0 {
		return h
	}
	out := *h
	out.Txns = append([]Txn(nil), h.Txns...)
	out.Versions = append([]Version(nil), h.Versions...)
	// moved[t][e] is the new index of event e of a changed transaction t.
	moved := map[int][]int{}
	for t := range h.Txns {
		changed := false
		for e := range h.Txns[t].Events {
			changed = changed || cut[EventRef{t, e}] && h.Txns[t].Events[e].Kind.Reads()
		}
		if !changed {
			continue
		}
		src := h.Txns[t].Events
		events := make([]Event, 0, len(src))
		index := make([]int, len(src))
		for e, ev := range src {
			index[e] = len(events)
			if !cut[EventRef{t, e}] || !ev.Kind.Reads() {
				events = append(events, ev)
				continue
			}
			if ev.Kind == Select {
				index[e] = -1
				continue
			}
			events = append(events, Event{Kind: Insert, Table: ev.Table, Writes: ev.Writes, Text: ev.Text, Was: &src[e]})
		}
		out.Txns[t].Events = events
		moved[t] = index
	}
	for i := range out.Versions {
		v := &out.Versions[i]
		if index, ok := moved[v.Writer]; ok && v.Writer >= 0 {
			v.Event = index[v.Event]
		}
	}
	return &out
}
