package sqlrun_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/db/sqlite"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/sqlrun"
	"github.com/isocheck/isocheck/sqlrun/sqlruntest"
)

// bank is a test App of every kind of statement: accounts with composite
// keys, a float and a text column, moved between by updates, opened by
// inserts, closed by deletes, and a transfer that aborts itself.
type bank struct{}

func (bank) Name() string { return "bank" }

func (bank) Tables() []sqlrun.Table {
	return []sqlrun.Table{{Name: "account", Key: []string{"branch", "id"}, Columns: []sqlrun.Column{
		{Name: "branch", Type: sqlrun.Int}, {Name: "id", Type: sqlrun.Int},
		{Name: "owner", Type: sqlrun.Text}, {Name: "balance", Type: sqlrun.Int}, {Name: "rate", Type: sqlrun.Float}}}}
}

func (bank) Load(rng *rand.Rand) map[string][]predicate.Row {
	var rows []predicate.Row
	for b := range 2 {
		for i := range 5 {
			r := predicate.Row{"branch": predicate.Int(int64(b)), "id": predicate.Int(int64(i)),
				"owner": predicate.String("o'neil"), "balance": predicate.Int(100)}
			if i%2 == 0 {
				r["rate"] = predicate.Float(0.5)
			}
			rows = append(rows, r)
		}
	}
	return map[string][]predicate.Row{"account": rows}
}

func (bank) Next(rng *rand.Rand) sqlrun.Txn {
	b, i, j := rng.IntN(2), rng.IntN(6), rng.IntN(6)
	acct := predicate.MustParse("branch = " + itoa(b) + " AND id = " + itoa(i))
	switch rng.IntN(5) {
	case 0:
		return sqlrun.Txn{Name: "Transfer", Important: true, Run: func(tx *sqlrun.Tx) error {
			from, err := tx.Update("account", acct, sqlrun.Set{"balance": sqlrun.Add(predicate.Int(-10))})
			if err != nil {
				return err
			}
			if len(from) == 0 || from[0]["balance"] == predicate.Int(-10) {
				return tx.Abort()
			}
			_, err = tx.Update("account", predicate.MustParse("branch = "+itoa(b)+" AND id = "+itoa(j)),
				sqlrun.Set{"balance": sqlrun.Add(predicate.Int(10)), "rate": sqlrun.To(predicate.Int(1))})
			return err
		}}
	case 1:
		return sqlrun.Txn{Name: "Open", Run: func(tx *sqlrun.Tx) error {
			return tx.Insert("account", predicate.Row{"branch": predicate.Int(int64(b)), "id": predicate.Int(int64(i)),
				"owner": predicate.String("new"), "balance": predicate.Int(0)})
		}}
	case 2:
		return sqlrun.Txn{Name: "Close", Run: func(tx *sqlrun.Tx) error {
			_, err := tx.Delete("account", acct)
			return err
		}}
	case 3:
		return sqlrun.Txn{Name: "Interest", Run: func(tx *sqlrun.Tx) error {
			_, err := tx.Update("account", predicate.MustParse("branch = "+itoa(b)+" AND rate IS NOT NULL AND balance > 50"),
				sqlrun.Set{"balance": sqlrun.Add(predicate.Int(1))})
			return err
		}}
	}
	return sqlrun.Txn{Name: "Audit", Run: func(tx *sqlrun.Tx) error {
		_, err := tx.Select("account", predicate.MustParse("branch = "+itoa(b)+" AND (owner = 'o''neil' OR balance BETWEEN 0 AND 95)"))
		if err != nil {
			return err
		}
		_, err = tx.Select("account", nil)
		return err
	}}
}

func itoa(i int) string { return predicate.Int(int64(i)).String() }

func TestRunBank(t *testing.T) {
	for _, d := range sqlruntest.Databases(t) {
		for _, mix := range []string{"ser", "si", "rc", "ser+rc", "si+rc", "random"} {
			t.Run(d.Name+"/"+mix, func(t *testing.T) {
				levels, err := sqlrun.ParseLevelMix(mix)
				if err != nil {
					t.Fatal(err)
				}
				sqlruntest.SkipUnlessRuns(t, d, levels)
				cfg := sqlrun.Config{Sessions: 3, TxnsPerSession: 15, Seed: 7, Levels: levels, Prefix: "sqlruntest_"}
				h, err := sqlrun.Run(context.Background(), d.DB, bank{}, cfg)
				if err != nil {
					t.Fatal(err)
				}
				sqlruntest.Check(t, h, cfg)
				sqlruntest.Satisfied(t, h, d.Name)
				size := len(sqlruntest.RoundTrip(t, h))
				kinds := map[sqlhistory.Kind]int{}
				status := map[sqlhistory.Status]int{}
				for _, tx := range h.Txns {
					status[tx.Status]++
					for _, e := range tx.Events {
						kinds[e.Kind]++
					}
				}
				t.Logf("%v %v, %d bytes written", status, kinds, size)
				for _, k := range []sqlhistory.Kind{sqlhistory.Select, sqlhistory.Insert, sqlhistory.Update, sqlhistory.Delete} {
					if kinds[k] == 0 {
						t.Errorf("no %v event", k)
					}
				}
				if status[sqlhistory.Committed] == 0 {
					t.Error("nothing committed")
				}
				if len(h.Initial) != 10 {
					t.Errorf("%d initial rows, want 10", len(h.Initial))
				}
				checkVersionChains(t, h)
			})
		}
	}
}

// checkVersionChains checks that on SQLite-like serial runs... every
// committed update read a version of its own row, and its recorded content
// is what the update computed from it.
func checkVersionChains(t *testing.T, h *sqlhistory.History) {
	t.Helper()
	for _, tx := range h.Txns {
		for _, e := range tx.Events {
			if e.Kind != sqlhistory.Update {
				continue
			}
			for i, r := range e.Reads {
				old, neu := h.Versions[r].Row, h.Versions[e.Writes[i]].Row
				if old["owner"] != neu["owner"] || old["branch"] != neu["branch"] || old["id"] != neu["id"] {
					t.Errorf("%s: update %s -> %s changed untouched columns", tx.Name, h.VersionString(r), h.VersionString(e.Writes[i]))
				}
				d, _ := neu["balance"].JSON().(int64)
				o, _ := old["balance"].JSON().(int64)
				if d-o != 10 && d-o != -10 && d-o != 1 {
					t.Errorf("%s: update %s -> %s: balance changed by %d", tx.Name, h.VersionString(r), h.VersionString(e.Writes[i]), d-o)
				}
			}
		}
	}
}

func TestParseLevelMix(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []level.Level
	}{
		{"ser", []level.Level{level.SER}},
		{"SI", []level.Level{level.SI}},
		{"rc", []level.Level{level.RC}},
		{"ser+rc", []level.Level{level.SER, level.RC}},
		{"si+rc", []level.Level{level.SI, level.RC}},
		{"random", []level.Level{level.SER, level.SI, level.RC}},
	} {
		m, err := sqlrun.ParseLevelMix(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Levels(); len(got) != len(c.want) || got[0] != c.want[0] || got[len(got)-1] != c.want[len(c.want)-1] {
			t.Errorf("%s: levels %v, want %v", c.in, got, c.want)
		}
		back, err := sqlrun.ParseLevelMix(m.String())
		if err != nil || back != m {
			t.Errorf("%s: String %q reads back as %v, %v", c.in, m.String(), back, err)
		}
	}
	for _, bad := range []string{"", "pc", "ser+", "ser+pc", "x+rc"} {
		if _, err := sqlrun.ParseLevelMix(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	m, _ := sqlrun.ParseLevelMix("ser+rc")
	rng := rand.New(rand.NewPCG(1, 2))
	if m.Level(true, rng) != level.SER || m.Level(false, rng) != level.RC {
		t.Error("ser+rc: important not SER or other not RC")
	}
}

// TestSQLiteRefusesMixedLevels: SQLite runs every transaction at SER, so
// a mix that asks for SI or RC is refused before the tables are touched,
// rather than recorded at levels the transactions did not have.
func TestSQLiteRefusesMixedLevels(t *testing.T) {
	ctx := context.Background()
	d, err := sqlite.OpenSQL(ctx, "sqlite://"+filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, tc := range []struct {
		mix  string
		want level.Level // the level refused; 0: the mix runs
	}{
		{"ser", 0},
		{"si", level.SI},
		{"rc", level.RC},
		{"ser+rc", level.RC},
		{"random", level.SI},
	} {
		levels, err := sqlrun.ParseLevelMix(tc.mix)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sqlrun.Config{Sessions: 2, TxnsPerSession: 3, Seed: 1, Levels: levels, Prefix: "refuse_"}
		h, err := sqlrun.Run(ctx, d, bank{}, cfg)
		if tc.want == 0 {
			if err != nil {
				t.Fatalf("%s: %v", tc.mix, err)
			}
			for _, tx := range h.Txns {
				if tx.Level != level.SER {
					t.Fatalf("%s: %s recorded at %v", tc.mix, tx.Name, tx.Level)
				}
			}
			continue
		}
		le, ok := errors.AsType[*sqlrun.LevelError](err)
		if !ok || le.Asked != tc.want || le.Runs != level.SER || !strings.Contains(err.Error(), "sqlite runs transactions asked for "+tc.want.String()+" at SER") {
			t.Errorf("%s on SQLite: %v, want a *LevelError for %v", tc.mix, err, tc.want)
		}
	}
}

// TestRecordAsked: for measurements, RecordAsked lets SQLite run a mix of
// weaker levels at SER and records the levels asked, each of which the
// SER run satisfies.
func TestRecordAsked(t *testing.T) {
	ctx := context.Background()
	d, err := sqlite.OpenSQL(ctx, "sqlite://"+filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	levels, err := sqlrun.ParseLevelMix("ser+rc")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sqlrun.Config{Sessions: 2, TxnsPerSession: 10, Seed: 1, Levels: levels, Prefix: "asked_", RecordAsked: true}
	h, err := sqlrun.Run(ctx, d, bank{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[level.Level]bool{}
	for _, tx := range h.Txns[1:] { // the first loads the tables
		seen[tx.Level] = true
	}
	if !seen[level.RC] {
		t.Errorf("levels recorded %v, want RC among them (the level asked)", seen)
	}
}
