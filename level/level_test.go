package level

import "testing"

func TestParseAndImplies(t *testing.T) {
	for _, l := range All() {
		got, err := Parse(l.String())
		if err != nil || got != l {
			t.Errorf("Parse(%q) = %v, %v", l, got, err)
		}
	}
	for _, bad := range []string{"snapshots", "", "all", "repeatable-read"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse accepted the unknown name %q", bad)
		}
	}
	cases := []struct {
		a, b Level
		want bool
	}{
		{SSER, SER, true}, {SER, SI, true}, {SI, PC, true}, {PC, CC, true}, {CC, RA, true}, {RA, RC, true},
		{SSER, RC, true}, {SI, SER, false}, {RC, RA, false}, {SI, SI, true},
	}
	for _, c := range cases {
		if got := c.a.Implies(c.b); got != c.want {
			t.Errorf("%v.Implies(%v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestParseLongNames(t *testing.T) {
	cases := map[string]Level{
		"serializable": SER, "Serializability": SER,
		"snapshot": SI, "snapshot-isolation": SI, "SNAPSHOT_ISOLATION": SI,
		"strict-serializable": SSER, "strict serializability": SSER,
		"prefix-consistency": PC, "causal": CC, "causal-consistency": CC,
		"read-atomic": RA, "read_committed": RC, "READ COMMITTED": RC,
	}
	for name, want := range cases {
		if got, err := Parse(name); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v, want %v", name, got, err, want)
		}
	}
}

// TestSpellings: every spelling of a level the command line takes, read
// by Parse and named as databases name it by DatabaseName.
func TestSpellings(t *testing.T) {
	tests := []struct {
		in       string
		level    Level // 0: Parse refuses it
		database string
	}{
		{"ser", SER, "serializable"},
		{"SER", SER, "serializable"},
		{"Ser", SER, "serializable"},
		{"serializable", SER, "serializable"},
		{"SERIALIZABLE", SER, "serializable"},
		{"Serializability", SER, "serializable"},
		{"si", SI, "snapshot"},
		{"SI", SI, "snapshot"},
		{"snapshot", SI, "snapshot"},
		{"snapshot-isolation", SI, "snapshot"},
		{"Snapshot Isolation", SI, "snapshot"},
		{"SNAPSHOT_ISOLATION", SI, "snapshot"},
		{"sser", SSER, "strict-serializable"},
		{"strict-serializable", SSER, "strict-serializable"},
		{"strict serializability", SSER, "strict-serializable"},
		{"STRONG_SERIALIZABLE", SSER, "strict-serializable"},
		{"pc", PC, "prefix-consistency"},
		{"prefix", PC, "prefix-consistency"},
		{"prefix-consistent", PC, "prefix-consistency"},
		{"cc", CC, "causal"},
		{"causal", CC, "causal"},
		{"Causally Consistent", CC, "causal"},
		{"ra", RA, "read-atomic"},
		{"read_atomic", RA, "read-atomic"},
		{"rc", RC, "read-committed"},
		{"read-committed", RC, "read-committed"},
		{"READ COMMITTED", RC, "read-committed"},
		{"ReadCommitted", RC, "read-committed"},
		// The SQL standard's levels that isocheck does not check.
		{"repeatable-read", 0, "repeatable-read"},
		{"REPEATABLE READ", 0, "repeatable-read"},
		{"repeatable_read", 0, "repeatable-read"},
		{"read uncommitted", 0, "read-uncommitted"},
		{"READ-UNCOMMITTED", 0, "read-uncommitted"},
		// Names it does not know come back as given.
		{"", 0, ""},
		{"all", 0, "all"},
		{"snapshots", 0, "snapshots"},
		{"s-i", 0, "s-i"},
	}
	for _, tc := range tests {
		got, err := Parse(tc.in)
		switch {
		case tc.level == 0 && err == nil:
			t.Errorf("Parse(%q) = %v, want an error", tc.in, got)
		case tc.level != 0 && (err != nil || got != tc.level):
			t.Errorf("Parse(%q) = %v, %v, want %v", tc.in, got, err, tc.level)
		}
		if got := DatabaseName(tc.in); got != tc.database {
			t.Errorf("DatabaseName(%q) = %q, want %q", tc.in, got, tc.database)
		}
	}
}

// TestDatabaseNamesParse: every level's database name reads back as the
// level.
func TestDatabaseNamesParse(t *testing.T) {
	for _, l := range All() {
		name := DatabaseName(l.String())
		if got, err := Parse(name); err != nil || got != l {
			t.Errorf("Parse(DatabaseName(%v) = %q) = %v, %v", l, name, got, err)
		}
	}
}
