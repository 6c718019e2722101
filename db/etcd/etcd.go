// Package etcd runs isocheck's transactions on an etcd cluster: it is the
// adapter of package db for etcd's key-value store, driving it through
// go.etcd.io/etcd/client/v3.
//
// A throwaway 3-node cluster on loopback starts with
//
//	scripts/etcd.sh start
//
// which prints its DSN, etcd://127.0.0.1:2379,127.0.0.1:2381,127.0.0.1:2383.
//
// # Transactions
//
// etcd has no interactive transactions, only single-round-trip Txn requests
// (If compares Then ops Else ops), so a transaction runs optimistically. Its
// first read is a linearizable Get whose header revision R fixes the
// transaction's snapshot; every later read is a Get at revision R. Writes and
// appends are buffered (reads see the transaction's own writes), an append
// being a read of the key's list at R followed by a buffered write of the
// longer list. Commit sends one Txn that compares the modification revision
// of every key read with the one seen at R and, if none changed, puts every
// buffered write; a failed compare is an abort with reason "conflict".
//
// etcd's Txn requests are strictly serializable, so the adapter provides the
// levels "strict-serializable" (the default) and "serializable". At
// "serializable" the first read is etcd's serializable read: the member
// the session talks to answers from its own state without asking the
// leader, so a member cut off from the others serves an old revision (a
// stale read, which serializability allows and strict serializability
// does not; etcd's API guarantees say as much of serializable reads). The
// commit's compares still go through the leader.
//
// A cluster whose members run in network namespaces, so that a nemesis
// can cut the links between them, starts with
//
//	ISOCHECK_NETNS=ic scripts/etcd.sh start
//
// and its clients run in the namespace ic-c (scripts/netns.sh).
package etcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/isocheck/isocheck/db"
)

// Scheme is the scheme of the adapter's DSNs:
// etcd://host:port[,host:port...][?dial-timeout=DURATION].
const Scheme = "etcd"

// Levels the adapter provides; the first is the default.
var levels = []string{"strict-serializable", "serializable"}

// defaultDialTimeout bounds connecting and Open's first request when the DSN
// sets no dial-timeout.
const defaultDialTimeout = 5 * time.Second

// config is a parsed DSN.
type config struct {
	endpoints   []string // host:port
	dialTimeout time.Duration
}

// parseDSN parses etcd://host:port[,host:port...][?dial-timeout=DURATION].
func parseDSN(dsn string) (config, error) {
	c := config{dialTimeout: defaultDialTimeout}
	rest, ok := strings.CutPrefix(dsn, Scheme+"://")
	if !ok {
		return c, fmt.Errorf("etcd DSN %q: want %s://host:port[,host:port...]", dsn, Scheme)
	}
	hosts, query, _ := strings.Cut(rest, "?")
	if i := strings.IndexAny(hosts, "/@#"); i >= 0 {
		return c, fmt.Errorf("etcd DSN %q: unexpected %q after the endpoints (no path, user or fragment)", dsn, hosts[i])
	}
	if hosts == "" {
		return c, fmt.Errorf("etcd DSN %q: no endpoint", dsn)
	}
	for ep := range strings.SplitSeq(hosts, ",") {
		host, port, err := net.SplitHostPort(ep)
		if err != nil {
			return c, fmt.Errorf("etcd DSN %q: endpoint %q: %w", dsn, ep, err)
		}
		if host == "" {
			return c, fmt.Errorf("etcd DSN %q: endpoint %q has no host", dsn, ep)
		}
		if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
			return c, fmt.Errorf("etcd DSN %q: endpoint %q: bad port %q", dsn, ep, port)
		}
		c.endpoints = append(c.endpoints, ep)
	}
	params, err := url.ParseQuery(query)
	if err != nil {
		return c, fmt.Errorf("etcd DSN %q: %w", dsn, err)
	}
	for name, vals := range params {
		v := vals[len(vals)-1]
		switch name {
		case "dial-timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return c, fmt.Errorf("etcd DSN %q: dial-timeout %q is not a positive duration", dsn, v)
			}
			c.dialTimeout = d
		default:
			return c, fmt.Errorf("etcd DSN %q: unknown parameter %q (known: dial-timeout)", dsn, name)
		}
	}
	return c, nil
}

// Database is an etcd cluster opened by Open.
type Database struct {
	cfg    config
	level  string
	prefix string // cfg.TableName() + "/"
}

// Open opens the cluster cfg.DSN names, checks that it answers and deletes
// every key under the prefix cfg.TableName()+"/".
func Open(ctx context.Context, cfg db.Config) (db.Database, error) {
	level := cfg.Level
	if level == "" {
		level = levels[0]
	}
	if !slices.Contains(levels, level) {
		return nil, &db.UnsupportedLevelError{Database: "etcd", Level: cfg.Level, Supported: slices.Clone(levels)}
	}
	c, err := parseDSN(cfg.DSN)
	if err != nil {
		return nil, err
	}
	d := &Database{cfg: c, level: level, prefix: cfg.TableName() + "/"}
	ctx, cancel := context.WithTimeout(ctx, c.dialTimeout)
	defer cancel()
	if err := reachable(ctx, c.endpoints); err != nil {
		return nil, err
	}
	cli, err := d.client(c.endpoints)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	// The client retries a request while no endpoint answers; the timeout
	// turns a cluster without a quorum into an error.
	if _, err := cli.Delete(ctx, d.prefix, clientv3.WithPrefix()); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %v (dial-timeout): %w", c.dialTimeout, err)
		}
		return nil, fmt.Errorf("etcd at %s: deleting %s*: %w", strings.Join(c.endpoints, ","), d.prefix, err)
	}
	return d, nil
}

// reachable returns an error if no endpoint accepts a TCP connection, so
// that Open fails at once when the cluster is not running (etcd's client
// would retry until the timeout).
func reachable(ctx context.Context, endpoints []string) error {
	errs := make([]error, len(endpoints))
	var wg sync.WaitGroup
	for i, ep := range endpoints {
		wg.Go(func() {
			var d net.Dialer
			conn, err := d.DialContext(ctx, "tcp", ep)
			if err != nil {
				errs[i] = err
				return
			}
			conn.Close()
		})
	}
	wg.Wait()
	if slices.Contains(errs, nil) {
		return nil
	}
	return fmt.Errorf("etcd at %s does not answer (is it running? scripts/etcd.sh start starts a cluster): %w",
		strings.Join(endpoints, ","), errors.Join(errs...))
}

// client returns a client of the endpoints.
func (d *Database) client(endpoints []string) (*clientv3.Client, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: d.cfg.dialTimeout,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client of %s: %w", strings.Join(endpoints, ","), err)
	}
	return cli, nil
}

// Level returns "strict-serializable" or "serializable", as asked.
func (d *Database) Level() string { return d.level }

// Session opens a client of session i connected to endpoint i mod n of the
// DSN's n endpoints only, so that sessions spread over the cluster's members
// rather than all following the client's balancer (which round-robins over
// all endpoints). A session whose member is down fails rather than moving
// to another member.
func (d *Database) Session(ctx context.Context, i int) (db.Session, error) {
	if i < 0 {
		return nil, fmt.Errorf("etcd: session %d: negative index", i)
	}
	ep := d.cfg.endpoints[i%len(d.cfg.endpoints)]
	cli, err := d.client([]string{ep})
	if err != nil {
		return nil, fmt.Errorf("session %d: %w", i, err)
	}
	return &Session{cli: cli, prefix: d.prefix, serializable: d.level == "serializable"}, nil
}

// Close does nothing: each session holds its own client.
func (d *Database) Close() error { return nil }

// Session is one client's connection to one member.
type Session struct {
	cli    *clientv3.Client
	prefix string
	// serializable says the first read of a transaction is the
	// member's own (see the package's doc), not linearizable.
	serializable bool
}

// Begin starts a transaction; it sends nothing to etcd.
func (s *Session) Begin(ctx context.Context) (db.Txn, error) {
	return &Txn{s: s, reads: map[int64]read{}, writes: map[int64]string{}}, nil
}

// Close closes the session's client.
func (s *Session) Close() error { return s.cli.Close() }

// read is what a transaction read of a key at its snapshot.
type read struct {
	value  string
	exists bool
	mod    int64 // the key's ModRevision at the snapshot; 0 if it did not exist
}

// Txn is a transaction: a snapshot revision, the keys read at it and the
// buffered writes.
type Txn struct {
	s      *Session
	rev    int64 // snapshot revision; 0 until the first read
	reads  map[int64]read
	writes map[int64]string
	done   bool
}

func (t *Txn) key(k int64) string { return t.s.prefix + strconv.FormatInt(k, 10) }

// get returns the key's value as the transaction sees it: its own buffered
// write, else the key at the snapshot. The first read from etcd fixes the
// snapshot's revision; it is linearizable but at "serializable".
func (t *Txn) get(ctx context.Context, k int64) (string, bool, error) {
	if t.done {
		return "", false, errors.New("etcd: transaction already committed or rolled back")
	}
	if v, ok := t.writes[k]; ok {
		return v, true, nil
	}
	if r, ok := t.reads[k]; ok {
		return r.value, r.exists, nil
	}
	var opts []clientv3.OpOption
	if t.rev == 0 && t.s.serializable {
		opts = append(opts, clientv3.WithSerializable())
	}
	if t.rev != 0 {
		// A read at a fixed revision sees immutable history: any member
		// that has applied t.rev answers the same, so it need not be
		// linearizable (a member that has not answers ErrFutureRev).
		opts = append(opts, clientv3.WithRev(t.rev), clientv3.WithSerializable())
	}
	resp, err := t.s.cli.Get(ctx, t.key(k), opts...)
	if err != nil {
		if errors.Is(err, rpctypes.ErrCompacted) {
			return "", false, db.Abort("compacted", fmt.Errorf("etcd: read of key %d at revision %d: %w", k, t.rev, err))
		}
		return "", false, fmt.Errorf("etcd: read of key %d: %w", k, err)
	}
	if t.rev == 0 {
		t.rev = resp.Header.Revision
	}
	var r read
	if len(resp.Kvs) > 0 {
		kv := resp.Kvs[0]
		r = read{value: string(kv.Value), exists: true, mod: kv.ModRevision}
	}
	t.reads[k] = r
	return r.value, r.exists, nil
}

// Read returns the key's value at the transaction's snapshot, or its own
// write.
func (t *Txn) Read(ctx context.Context, key int64) (int64, bool, error) {
	s, ok, err := t.get(ctx, key)
	if err != nil || !ok {
		return 0, false, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("etcd: key %d holds %q, not an integer", key, s)
	}
	return v, true, nil
}

// Write buffers the write until Commit.
func (t *Txn) Write(ctx context.Context, key, value int64) error {
	if t.done {
		return errors.New("etcd: transaction already committed or rolled back")
	}
	t.writes[key] = strconv.FormatInt(value, 10)
	return nil
}

// Append reads the key's list (a read of the transaction, checked at
// Commit like any other) and buffers the list with value appended. Lists
// are stored as comma-separated decimal elements.
func (t *Txn) Append(ctx context.Context, key, value int64) error {
	s, ok, err := t.get(ctx, key)
	if err != nil {
		return err
	}
	e := strconv.FormatInt(value, 10)
	if ok && s != "" {
		e = s + "," + e
	}
	t.writes[key] = e
	return nil
}

// ReadList returns the key's list at the transaction's snapshot, with the
// transaction's own appends.
func (t *Txn) ReadList(ctx context.Context, key int64) ([]int64, error) {
	s, ok, err := t.get(ctx, key)
	if err != nil || !ok || s == "" {
		return nil, err
	}
	var l []int64
	for e := range strings.SplitSeq(s, ",") {
		v, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("etcd: key %d holds %q, not a list of integers", key, s)
		}
		l = append(l, v)
	}
	return l, nil
}

// Commit sends the transaction's writes in one Txn guarded by a compare of
// every key it read.
//
// The compares are ModRevision(k) == the revision read at the snapshot R,
// for the keys read only. If they hold when etcd applies the Txn at
// revision C, no key read changed (nor was deleted) between R and C, so the
// transaction read exactly the state at C-1 and its writes take effect at
// C: it is equivalent to running alone at C, which lies within the call of
// Commit, so the order of commit revisions is a strictly serializable
// order. Keys only written need no compare: a blind write is serialized at
// C whatever happened to the key before, and a compare of it would only
// abort transactions that are serializable (it would give first committer
// wins on writes, which snapshot isolation needs, not serializability).
//
// A read-only transaction sends nothing: it read the state at R, the
// revision of its first, linearizable, read, whose answer reflects every
// write committed before that read began and no write committed after it
// answered. So the transaction is equivalent to running alone at R, a point
// within its real-time interval, and it is serializable there; no other
// transaction's serialization point is affected by it.
//
// etcd's client resends a Txn only when no connection to any endpoint was
// available to send it on, so a Txn is never applied twice; any error
// without a Txn response is an unknown outcome.
func (t *Txn) Commit(ctx context.Context) error {
	if t.done {
		return errors.New("etcd: transaction already committed or rolled back")
	}
	t.done = true
	if len(t.writes) == 0 {
		return nil
	}
	var cmps []clientv3.Cmp
	var keys []int64 // of cmps, in order
	for k, r := range t.reads {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(t.key(k)), "=", r.mod))
		keys = append(keys, k)
	}
	puts := make([]clientv3.Op, 0, len(t.writes))
	for k, v := range t.writes {
		puts = append(puts, clientv3.OpPut(t.key(k), v))
	}
	// On a failed compare, the keys read come back to name the culprit.
	gets := make([]clientv3.Op, len(keys))
	for i, k := range keys {
		gets[i] = clientv3.OpGet(t.key(k), clientv3.WithKeysOnly())
	}
	resp, err := t.s.cli.Txn(ctx).If(cmps...).Then(puts...).Else(gets...).Commit()
	if errors.Is(err, rpctypes.ErrTooManyOps) || errors.Is(err, rpctypes.ErrRequestTooLarge) {
		// etcd checks these before proposing the Txn to the cluster.
		return db.Abort("refused", fmt.Errorf("etcd: commit of %d reads and %d writes: %w", len(t.reads), len(t.writes), err))
	}
	if err != nil {
		return fmt.Errorf("etcd: commit (outcome unknown): %w", err)
	}
	if resp.Succeeded {
		return nil
	}
	return db.Abort("conflict", t.conflict(keys, resp))
}

// conflict describes the keys read at the snapshot that changed before
// Commit.
func (t *Txn) conflict(keys []int64, resp *clientv3.TxnResponse) error {
	var changed []string
	for i, r := range resp.Responses {
		g := r.GetResponseRange()
		if g == nil || i >= len(keys) {
			continue
		}
		var mod int64
		if len(g.Kvs) > 0 {
			mod = g.Kvs[0].ModRevision
		}
		if want := t.reads[keys[i]].mod; mod != want {
			changed = append(changed, fmt.Sprintf("key %d (modified at %d, read as of %d)", keys[i], mod, want))
		}
	}
	if len(changed) == 0 {
		return fmt.Errorf("etcd: a key read at revision %d changed by revision %d", t.rev, resp.Header.Revision)
	}
	return fmt.Errorf("etcd: keys read at revision %d changed by revision %d: %s", t.rev, resp.Header.Revision, strings.Join(changed, ", "))
}

// Rollback discards the transaction; nothing was sent to etcd but reads.
func (t *Txn) Rollback(ctx context.Context) error {
	t.done = true
	return nil
}
