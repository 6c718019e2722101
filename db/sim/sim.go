// Package sim is the isocheck adapter of simulated stores: in-process
// key-value stores that provide an isolation level, or fail to in a known
// way, for demonstrations and tests that need no database server.
//
// A DSN is sim://STORE[?fault=FAULT&p=P&seed=N]. The stores, with the level
// each provides, are:
//
//	ser  serializable    transactions run one at a time (strict serializable)
//	si   snapshot        each transaction reads the snapshot committed when it
//	                     began and its own writes; the first committer wins a
//	                     write-write conflict, the other aborts
//	rc   read-committed  each read returns the latest committed value or the
//	                     transaction's own write; a write locks its key until
//	                     the transaction ends, and a write to a key another
//	                     transaction locked aborts at once (as with NOWAIT);
//	                     commits are atomic, with no other conflict check
//
// A fault is a bug of a realistic kind that a checker must catch:
//
//	lost-update     (si) commits skip the first-committer-wins check, so
//	                concurrent read-modify-writes overwrite each other
//	dirty-read      (rc) reads see the writes of transactions that have not
//	                committed; a fraction P of commits abort (default 0.1),
//	                so some reads return writes that never commit
//	fractured-read  (si, rc) a commit installs its writes key by key while
//	                other transactions run, which can see half of it (on rc
//	                this breaks read atomic, a level above read committed)
//	stale-read      (ser) a fraction P of transactions (default 0.1) read
//	                a snapshot up to 10 commits old, never older than what
//	                their session saw: serializable, but not strictly; a
//	                stale transaction that then writes aborts
//
// Random choices come from a generator seeded by seed (default 1).
//
// With down-after=N the store stops answering after its N-th commit, as a
// server that crashed: every call fails with a connection refused, to test
// what a client does when its database dies mid-run.
//
// Package histgen is the other simulator: it generates, in one call and
// without the runner, a history of an exact isolation level (seven
// levels, from read committed to strict serializable), for property tests
// and benchmarks of the checker. Use this package to run plans (isocheck
// run --db sim://...) and test what runs against databases.
package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/isocheck/isocheck/db"
)

// Scheme is the DSN scheme of simulated stores.
const Scheme = "sim"

// Stores and their levels.
var levels = map[string]string{
	"ser": "serializable",
	"si":  "snapshot",
	"rc":  "read-committed",
}

// Faults and the stores each applies to.
var faults = map[string][]string{
	"lost-update":    {"si"},
	"dirty-read":     {"rc"},
	"fractured-read": {"si", "rc"},
	"stale-read":     {"ser"},
}

// staleWindow is how many commits old a stale-read snapshot may be.
const staleWindow = 10

// Faults returns the names of the faults, sorted.
func Faults() []string {
	var names []string
	for f := range faults {
		names = append(names, f)
	}
	slices.Sort(names)
	return names
}

// Stores returns the names of the stores, sorted.
func Stores() []string {
	var names []string
	for s := range levels {
		names = append(names, s)
	}
	slices.Sort(names)
	return names
}

// options are what a DSN says.
type options struct {
	store, fault string
	p            float64
	seed         uint64
	downAfter    int64 // commits before the store goes down; 0: never
}

func parseDSN(dsn string) (options, error) {
	o := options{p: 0.1, seed: 1}
	u, err := url.Parse(dsn)
	if err != nil {
		return o, fmt.Errorf("sim: DSN %q: %w", dsn, err)
	}
	if !strings.EqualFold(u.Scheme, Scheme) || u.Opaque != "" {
		return o, fmt.Errorf("sim: DSN %q: want sim://STORE[?fault=FAULT] with STORE one of %s", dsn, strings.Join(Stores(), ", "))
	}
	o.store = strings.ToLower(u.Host)
	if _, ok := levels[o.store]; !ok {
		return o, fmt.Errorf("sim: DSN %q: unknown store %q, want one of %s", dsn, u.Host, strings.Join(Stores(), ", "))
	}
	if u.Path != "" && u.Path != "/" {
		return o, fmt.Errorf("sim: DSN %q: unexpected path %q", dsn, u.Path)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return o, fmt.Errorf("sim: DSN %q: %w", dsn, err)
	}
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "fault":
			stores, ok := faults[v]
			if !ok {
				return o, fmt.Errorf("sim: DSN %q: unknown fault %q, want one of %s", dsn, v, strings.Join(Faults(), ", "))
			}
			if !slices.Contains(stores, o.store) {
				return o, fmt.Errorf("sim: DSN %q: fault %s applies to store %s, not %s", dsn, v, strings.Join(stores, " or "), o.store)
			}
			o.fault = v
		case "p":
			p, err := strconv.ParseFloat(v, 64)
			if err != nil || !(p >= 0 && p <= 1) {
				return o, fmt.Errorf("sim: DSN %q: p=%q is not a probability between 0 and 1", dsn, v)
			}
			o.p = p
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return o, fmt.Errorf("sim: DSN %q: seed=%q is not a non-negative integer", dsn, v)
			}
			o.seed = n
		case "down-after":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return o, fmt.Errorf("sim: DSN %q: down-after=%q is not a positive integer", dsn, v)
			}
			o.downAfter = n
		default:
			return o, fmt.Errorf("sim: DSN %q: unknown parameter %q (known: fault, p, seed, down-after)", dsn, k)
		}
	}
	return o, nil
}

// version is a committed value of a key.
type version struct {
	ts   int64   // commit timestamp
	reg  int64   // a register's value
	list []int64 // a list's elements; never modified once installed
}

// pending is an uncommitted write that dirty reads see.
type pending struct {
	t    *txn
	reg  int64
	elem int64 // lists: one appended element
}

// store is a simulated store.
type store struct {
	name, level, fault string
	keys               int
	lists              bool
	p                  float64

	// serial is held by a ser transaction from Begin to its end.
	serial chan struct{}

	mu         sync.Mutex
	closed     bool
	clock      int64               // timestamp of the latest commit
	data       map[int64][]version // committed versions, oldest first
	active     map[int64]int       // snapshots in use, by timestamp
	dirty      map[int64][]pending // dirty-read: uncommitted writes
	installing map[int64]bool      // fractured-read: keys being committed
	locks      map[int64]*txn      // rc: the transaction holding a key's write lock
	rng        *rand.Rand          // fault dice
	between    func()              // fractured-read: runs between two keys' installs

	downAfter int64       // commits before the store goes down; 0: never
	commits   int64       // commits so far
	down      atomic.Bool // the store stopped answering
}

// Open opens a new, empty simulated store as cfg.DSN says.
func Open(ctx context.Context, cfg db.Config) (db.Database, error) {
	o, err := parseDSN(cfg.DSN)
	if err != nil {
		return nil, err
	}
	level := levels[o.store]
	if cfg.Level != "" && cfg.Level != level {
		return nil, &db.UnsupportedLevelError{Database: "sim://" + o.store, Level: cfg.Level, Supported: []string{level}}
	}
	return &store{
		name:       o.store,
		level:      level,
		fault:      o.fault,
		keys:       cfg.Keys,
		lists:      cfg.Lists,
		p:          o.p,
		serial:     make(chan struct{}, 1),
		data:       map[int64][]version{},
		active:     map[int64]int{},
		dirty:      map[int64][]pending{},
		installing: map[int64]bool{},
		locks:      map[int64]*txn{},
		rng:        rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15)),
		between:    runtime.Gosched,
		downAfter:  o.downAfter,
	}, nil
}

func (s *store) Level() string { return s.level }

func (s *store) Session(ctx context.Context, i int) (db.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	if s.down.Load() {
		return nil, errDown
	}
	return &session{s: s}, nil
}

// errDown is the error of every call to a store that went down.
var errDown = errors.New("sim: dial: connection refused (the store went down)")

// committed counts a commit, and takes the store down after downAfter;
// s.mu is held.
func (s *store) committed() {
	s.commits++
	if s.downAfter > 0 && s.commits >= s.downAfter {
		s.down.Store(true)
	}
}

func (s *store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

var errClosed = errors.New("sim: database closed")

// latest returns key's latest committed version.
func (s *store) latest(key int64) (version, bool) {
	vs := s.data[key]
	if len(vs) == 0 {
		return version{}, false
	}
	return vs[len(vs)-1], true
}

// at returns key's version in the snapshot of timestamp ts.
func (s *store) at(key, ts int64) (version, bool) {
	vs := s.data[key]
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].ts <= ts {
			return vs[i], true
		}
	}
	return version{}, false
}

// install commits w as key's value at timestamp ts, over base.
func (s *store) install(key int64, w *write, base version, ts int64) {
	s.clock = ts
	v := version{ts: ts, reg: w.reg}
	if s.lists {
		v.list = append(slices.Clip(base.list), w.elems...)
	}
	s.data[key] = append(s.data[key], v)
	s.prune(key)
}

// prune drops the versions of key that no snapshot can read.
func (s *store) prune(key int64) {
	horizon := s.clock
	if s.fault == "stale-read" {
		horizon -= staleWindow
	}
	for ts := range s.active {
		horizon = min(horizon, ts)
	}
	vs := s.data[key]
	i := 0 // the newest version at or before horizon
	for j := 1; j < len(vs) && vs[j].ts <= horizon; j++ {
		i = j
	}
	if i > 0 {
		s.data[key] = slices.Delete(vs, 0, i)
	}
}

func (s *store) snapshot(ts int64) {
	s.active[ts]++
}

func (s *store) release(ts int64) {
	if s.active[ts]--; s.active[ts] <= 0 {
		delete(s.active, ts)
	}
}

// session is one client of a store.
type session struct {
	s    *store
	seen int64 // stale-read: the latest commit the session saw
	tx   *txn  // the transaction in progress
}

func (se *session) Begin(ctx context.Context) (db.Txn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sim: begin: %w", err)
	}
	if se.s.down.Load() {
		return nil, errDown
	}
	s := se.s
	t := &txn{se: se, snap: -1, writes: map[int64]*write{}}
	if s.name == "ser" {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, errClosed
		}
		if s.fault == "stale-read" && s.rng.Float64() < s.p {
			lo := max(se.seen, s.clock-staleWindow)
			t.snap = lo + s.rng.Int64N(s.clock-lo+1)
			t.stale = true
			s.snapshot(t.snap)
			s.mu.Unlock()
			se.tx = t
			return t, nil
		}
		s.mu.Unlock()
		if err := t.lock(ctx); err != nil {
			return nil, fmt.Errorf("sim: begin: %w", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		t.unlock()
		return nil, errClosed
	}
	if s.name == "si" {
		t.snap = s.clock
		s.snapshot(t.snap)
	}
	se.tx = t
	return t, nil
}

// Close rolls back the transaction in progress, if any.
func (se *session) Close() error {
	if se.tx != nil {
		se.tx.Rollback(context.Background())
	}
	return nil
}

// write is a transaction's write of a key.
type write struct {
	reg   int64   // registers: the value written
	elems []int64 // lists: the elements appended
}

// txn is a transaction of a simulated store.
type txn struct {
	se     *session
	snap   int64 // the snapshot read (si, stale ser), or -1: the latest commit
	stale  bool  // stale-read: reads snap without the serial lock
	locked bool  // holds the store's serial lock
	read   bool  // has read
	writes map[int64]*write
	order  []int64 // keys written, in order
	done   bool
}

// lock takes the ser store's serial lock, unless ctx ends first.
func (t *txn) lock(ctx context.Context) error {
	select {
	case t.se.s.serial <- struct{}{}:
		t.locked = true
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *txn) unlock() {
	if t.locked {
		<-t.se.s.serial
		t.locked = false
	}
}

// check refuses an operation on a finished transaction, a key out of
// range, or an operation of the wrong kind.
func (t *txn) check(ctx context.Context, op string, key int64, list bool) error {
	// Let other sessions run between operations, as they would while a
	// request travels to a server: without it a fast store runs each
	// transaction almost alone and faults seldom show.
	runtime.Gosched()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: %s %d: %w", op, key, err)
	}
	if t.done {
		return fmt.Errorf("sim: %s %d: transaction already ended", op, key)
	}
	if t.se.s.down.Load() {
		return errDown
	}
	if n := t.se.s.keys; n > 0 && (key < 0 || key >= int64(n)) {
		return fmt.Errorf("sim: %s: key %d out of range 0..%d", op, key, n-1)
	}
	if list != t.se.s.lists {
		if list {
			return fmt.Errorf("sim: %s %d: the store holds registers (open with Lists)", op, key)
		}
		return fmt.Errorf("sim: %s %d: the store holds lists (use Append and ReadList)", op, key)
	}
	return nil
}

// base returns the committed version of key that t reads.
func (t *txn) base(key int64) (version, bool) {
	if t.snap >= 0 {
		return t.se.s.at(key, t.snap)
	}
	return t.se.s.latest(key)
}

func (t *txn) Read(ctx context.Context, key int64) (int64, bool, error) {
	if err := t.check(ctx, "read", key, false); err != nil {
		return 0, false, err
	}
	s := t.se.s
	s.mu.Lock()
	defer s.mu.Unlock()
	t.read = true
	if w, ok := t.writes[key]; ok {
		return w.reg, true, nil
	}
	if ps := s.dirty[key]; len(ps) > 0 {
		return ps[len(ps)-1].reg, true, nil
	}
	v, ok := t.base(key)
	return v.reg, ok, nil
}

func (t *txn) ReadList(ctx context.Context, key int64) ([]int64, error) {
	if err := t.check(ctx, "read list", key, true); err != nil {
		return nil, err
	}
	s := t.se.s
	s.mu.Lock()
	defer s.mu.Unlock()
	t.read = true
	v, _ := t.base(key)
	l := slices.Clone(v.list)
	if s.fault == "dirty-read" {
		for _, p := range s.dirty[key] {
			l = append(l, p.elem)
		}
	} else if w, ok := t.writes[key]; ok {
		l = append(l, w.elems...)
	}
	if l == nil {
		l = []int64{}
	}
	return l, nil
}

// writing prepares t to write: a stale ser transaction takes the serial
// lock, and aborts if it read a snapshot that is no longer the latest.
func (t *txn) writing(ctx context.Context, op string, key int64) error {
	if !t.stale {
		return nil
	}
	if err := t.lock(ctx); err != nil {
		return fmt.Errorf("sim: %s %d: %w", op, key, err)
	}
	s := t.se.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release(t.snap)
	snap := t.snap
	t.snap, t.stale = -1, false
	if t.read && snap != s.clock {
		return db.Abort("stale read", fmt.Errorf("sim: %s %d: read snapshot %d, latest commit %d", op, key, snap, s.clock))
	}
	return nil
}

func (t *txn) Write(ctx context.Context, key, value int64) error {
	if err := t.check(ctx, "write", key, false); err != nil {
		return err
	}
	if err := t.writing(ctx, "write", key); err != nil {
		return err
	}
	s := t.se.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := t.lockKey("write", key); err != nil {
		return err
	}
	t.record(key).reg = value
	if s.fault == "dirty-read" {
		s.dirty[key] = append(s.dirty[key], pending{t: t, reg: value})
	}
	return nil
}

func (t *txn) Append(ctx context.Context, key, value int64) error {
	if err := t.check(ctx, "append to", key, true); err != nil {
		return err
	}
	if err := t.writing(ctx, "append to", key); err != nil {
		return err
	}
	s := t.se.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := t.lockKey("append to", key); err != nil {
		return err
	}
	w := t.record(key)
	w.elems = append(w.elems, value)
	if s.fault == "dirty-read" {
		s.dirty[key] = append(s.dirty[key], pending{t: t, elem: value})
	}
	return nil
}

// lockKey takes key's write lock on an rc store, or aborts if another
// transaction holds it; s.mu is held.
func (t *txn) lockKey(op string, key int64) error {
	s := t.se.s
	if s.name != "rc" {
		return nil
	}
	if h, ok := s.locks[key]; ok && h != t {
		return db.Abort("write conflict", fmt.Errorf("sim: %s %d: another transaction has written the key", op, key))
	}
	s.locks[key] = t
	return nil
}

// record returns t's write of key, new if need be.
func (t *txn) record(key int64) *write {
	w, ok := t.writes[key]
	if !ok {
		w = &write{}
		t.writes[key] = w
		t.order = append(t.order, key)
	}
	return w
}

func (t *txn) Commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: commit: %w", err)
	}
	if t.done {
		return errors.New("sim: commit: transaction already ended")
	}
	runtime.Gosched()
	s := t.se.s
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	if s.down.Load() {
		// The commit got no answer: it did not take effect, but the
		// client cannot know.
		t.end()
		s.mu.Unlock()
		return errDown
	}
	if err := t.conflict(); err != nil {
		t.end()
		s.mu.Unlock()
		return err
	}
	if s.fault != "fractured-read" {
		// One timestamp for all the writes: no snapshot sees part.
		ts := s.clock + 1
		for _, k := range t.order {
			t.installOne(k, ts)
		}
		t.see(s.clock)
		t.end()
		s.committed()
		s.mu.Unlock()
		return nil
	}
	// Fractured: one key at a time, letting others run in between. The
	// keys are marked so that a conflicting commit still aborts.
	for _, k := range t.order {
		s.installing[k] = true
	}
	for i, k := range t.order {
		if i > 0 {
			s.mu.Unlock()
			s.between()
			s.mu.Lock()
		}
		t.installOne(k, s.clock+1)
		delete(s.installing, k)
	}
	t.see(s.clock)
	t.end()
	s.committed()
	s.mu.Unlock()
	return nil
}

// conflict returns the abort of t's commit, if any; s.mu is held.
func (t *txn) conflict() error {
	s := t.se.s
	switch {
	case s.fault == "dirty-read":
		if len(t.order) > 0 && s.rng.Float64() < s.p {
			return db.Abort("random abort", errors.New("sim: commit: the dirty-read fault aborts a fraction of commits"))
		}
	case s.name == "si" && s.fault != "lost-update":
		for _, k := range t.order {
			if v, ok := s.latest(k); ok && v.ts > t.snap || s.installing[k] {
				return db.Abort("write conflict", fmt.Errorf("sim: commit: key %d was written since snapshot %d", k, t.snap))
			}
		}
	case s.name == "rc" || s.name == "ser":
		for _, k := range t.order {
			if s.installing[k] {
				return db.Abort("write conflict", fmt.Errorf("sim: commit: key %d is being committed", k))
			}
		}
	}
	return nil
}

// installOne installs t's write of key k; s.mu is held. A lost update
// writes a list over the transaction's snapshot, dropping concurrent
// appends.
func (t *txn) installOne(k, ts int64) {
	s := t.se.s
	base, _ := s.latest(k)
	if s.fault == "lost-update" {
		base, _ = s.at(k, t.snap)
	}
	s.install(k, t.writes[k], base, ts)
}

// see records that t's session saw the commit of timestamp ts.
func (t *txn) see(ts int64) {
	if t.stale {
		ts = t.snap
	}
	t.se.seen = max(t.se.seen, ts)
}

// end finishes t: its snapshot, dirty writes and lock go; s.mu is held.
func (t *txn) end() {
	if t.done {
		return
	}
	t.done = true
	s := t.se.s
	if t.snap >= 0 {
		s.release(t.snap)
	}
	if s.fault == "dirty-read" {
		for _, k := range t.order {
			s.dirty[k] = slices.DeleteFunc(s.dirty[k], func(p pending) bool { return p.t == t })
			if len(s.dirty[k]) == 0 {
				delete(s.dirty, k)
			}
		}
	}
	for _, k := range t.order {
		if s.locks[k] == t {
			delete(s.locks, k)
		}
	}
	t.unlock()
	if t.se.tx == t {
		t.se.tx = nil
	}
}

func (t *txn) Rollback(ctx context.Context) error {
	s := t.se.s
	s.mu.Lock()
	defer s.mu.Unlock()
	t.end()
	return nil
}
