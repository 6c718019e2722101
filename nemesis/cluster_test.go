package nemesis

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// clusterScript returns the absolute path of scripts/NAME.sh if its
// cluster is to be tested: when env is 1, and then it must run in dir.
func clusterScript(t *testing.T, name, env, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no faults in clusters")
	}
	script, err := filepath.Abs(filepath.Join("..", "scripts", name+".sh"))
	if err != nil {
		t.Fatal(err)
	}
	// Faulting a cluster disturbs whoever else uses it: only on request.
	if os.Getenv(env) != "1" {
		t.Skipf("set %s=1 to let the test pause and kill the nodes of the cluster scripts/%s.sh started in %s", env, name, dir)
	}
	n := &nemesis{cfg: Config{Script: script, Dir: dir}}
	if _, err := n.pids(context.Background()); err != nil {
		t.Fatalf("the %s cluster in %s is not whole (%v); start one with: scripts/%s.sh start", name, dir, err, name)
	}
	return script
}

// checkRunning checks that every node of the cluster runs and none is
// stopped.
func checkRunning(t *testing.T, script, dir string) {
	t.Helper()
	n := &nemesis{cfg: Config{Script: script, Dir: dir}}
	pids, err := n.pids(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, pid := range pids {
		if s := procState(pid); s == 'T' || s == 'Z' {
			t.Errorf("node %d (pid %d) is in state %q", i, pid, s)
		}
	}
}

var etcdEndpoints = []string{"127.0.0.1:2379", "127.0.0.1:2381", "127.0.0.1:2383"}

// TestEtcd pauses, then kills, members of the cluster of scripts/etcd.sh
// while a client puts.
func TestEtcd(t *testing.T) {
	const dir = "/tmp/isocheck-etcd"
	script := clusterScript(t, "etcd", "ISOCHECK_ETCD_SCRIPT_TEST", dir)
	for _, tt := range []struct {
		kind string
		run  time.Duration
	}{{Pause, 6 * time.Second}, {Kill, 8 * time.Second}} {
		t.Run(tt.kind, func(t *testing.T) {
			cli, err := clientv3.New(clientv3.Config{Endpoints: etcdEndpoints, DialTimeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			ctx, cancel := context.WithTimeout(context.Background(), tt.run)
			defer cancel()
			var wg sync.WaitGroup
			var ok, failed int
			wg.Go(func() {
				for i := 0; ctx.Err() == nil; i++ {
					c, cancel := context.WithTimeout(ctx, time.Second)
					_, err := cli.Put(c, "isocheck-nemesis-test", strconv.Itoa(i))
					cancel()
					if err != nil {
						failed++
						continue
					}
					ok++
				}
			})
			start := time.Now()
			events, err := Run(ctx, Config{Kind: tt.kind, Script: script, Dir: dir,
				Interval: time.Second, Duration: time.Second, Seed: time.Now().UnixNano(), Log: tlog{t}})
			wg.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > tt.run+35*time.Second {
				t.Errorf("Run returned %v after its context ended", d-tt.run)
			}
			if n := checkEvents(t, events, tt.kind); n < 2 {
				t.Errorf("%d faults in %v, want at least 2", n, tt.run)
			}
			t.Logf("%d puts acknowledged, %d failed", ok, failed)
			if ok == 0 {
				t.Error("no put was acknowledged")
			}
			checkRunning(t, script, dir)
			checkEtcdHealthy(t)
		})
	}
}

// checkEtcdHealthy checks that every member answers a linearizable read
// and a put.
func checkEtcdHealthy(t *testing.T) {
	t.Helper()
	for _, ep := range etcdEndpoints {
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := cli.Status(ctx, ep); err != nil {
			t.Errorf("member %s: status: %v", ep, err)
		}
		if _, err := cli.Put(ctx, "isocheck-nemesis-test", ep); err != nil {
			t.Errorf("member %s: put: %v", ep, err)
		}
		if _, err := cli.Get(ctx, "isocheck-nemesis-test"); err != nil {
			t.Errorf("member %s: get: %v", ep, err)
		}
		cancel()
		cli.Close()
	}
}

// TestGalera pauses, then kills, nodes of the cluster of
// scripts/galera.sh while a client on each node inserts rows, and checks
// that every node is Synced in the whole cluster again and holds every
// acknowledged row.
func TestGalera(t *testing.T) {
	const dir = "/tmp/isocheck-galera"
	script := clusterScript(t, "galera", "ISOCHECK_GALERA_SCRIPT_TEST", dir)
	for _, tt := range []struct {
		kind string
		run  time.Duration
	}{{Pause, 8 * time.Second}, {Kill, 25 * time.Second}} {
		t.Run(tt.kind, func(t *testing.T) { testGalera(t, script, dir, tt.kind, tt.run) })
	}
}

func testGalera(t *testing.T, script, dir, kind string, run time.Duration) {
	ports := []int{3307, 3308, 3309}
	dbs := make([]*sql.DB, len(ports))
	for i, port := range ports {
		// wsrep_sync_wait: reads see every write set the cluster committed.
		d, err := sql.Open("mysql", fmt.Sprintf("isocheck@tcp(127.0.0.1:%d)/isocheck?timeout=2s&readTimeout=3s&writeTimeout=3s&wsrep_sync_wait=1", port))
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		dbs[i] = d
	}
	setup := func(stmt string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := dbs[0].ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	setup("DROP TABLE IF EXISTS isocheck_nemesis_test")
	setup("CREATE TABLE isocheck_nemesis_test (id BIGINT PRIMARY KEY)")
	defer setup("DROP TABLE IF EXISTS isocheck_nemesis_test")

	ctx, cancel := context.WithTimeout(context.Background(), run)
	defer cancel()
	acked := make([][]int64, len(dbs))
	failed := make([]int, len(dbs))
	var wg sync.WaitGroup
	for i, d := range dbs {
		wg.Go(func() {
			for id := int64(i) << 32; ctx.Err() == nil; id++ {
				c, cancel := context.WithTimeout(ctx, 2*time.Second)
				_, err := d.ExecContext(c, "INSERT INTO isocheck_nemesis_test VALUES (?)", id)
				cancel()
				if err != nil {
					failed[i]++
					time.Sleep(50 * time.Millisecond)
					continue
				}
				acked[i] = append(acked[i], id)
			}
		})
	}
	events, err := Run(ctx, Config{Kind: kind, Script: script, Dir: dir,
		Interval: 2 * time.Second, Duration: 2 * time.Second, Seed: time.Now().UnixNano(), Log: tlog{t}})
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if n := checkEvents(t, events, kind); n < 2 {
		t.Errorf("%d faults in %v, want at least 2", n, run)
	}
	for i := range dbs {
		t.Logf("node %d: %d inserts acknowledged, %d failed", i, len(acked[i]), failed[i])
	}
	checkRunning(t, script, dir)
	for i, d := range dbs {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var name, state, size string
		if err := d.QueryRowContext(ctx, "SHOW STATUS LIKE 'wsrep_local_state_comment'").Scan(&name, &state); err != nil {
			t.Errorf("node %d: %v", i, err)
		}
		if err := d.QueryRowContext(ctx, "SHOW STATUS LIKE 'wsrep_cluster_size'").Scan(&name, &size); err != nil {
			t.Errorf("node %d: %v", i, err)
		}
		if state != "Synced" || size != "3" {
			t.Errorf("node %d is %s in a cluster of %s nodes, want Synced in 3", i, state, size)
		}
		rows := map[int64]bool{}
		r, err := d.QueryContext(ctx, "SELECT id FROM isocheck_nemesis_test")
		if err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
		for r.Next() {
			var id int64
			if err := r.Scan(&id); err != nil {
				t.Fatal(err)
			}
			rows[id] = true
		}
		if err := r.Err(); err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
		cancel()
		lost := 0
		for _, ids := range acked {
			for _, id := range ids {
				if !rows[id] {
					lost++
				}
			}
		}
		if lost > 0 {
			t.Errorf("node %d lacks %d acknowledged rows", i, lost)
		}
	}
}

// tlog writes the nemesis's log to the test's.
type tlog struct{ t *testing.T }

func (w tlog) Write(p []byte) (int, error) {
	w.t.Log(string(p[:len(p)-1]))
	return len(p), nil
}
