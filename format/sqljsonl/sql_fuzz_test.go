package sqljsonl_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/sqljsonl"
)

func FuzzReadSQL(f *testing.F) {
	f.Add([]byte(sqlSample))
	f.Add([]byte(`{"session":"a","level":"ra","events":[{"delete":"t","where":"x BETWEEN 1 AND 2 OR y IS NOT NULL","rows":[{"key":[1,"\u00e9"],"read":"g"},{"key":-0,"read":"h","id":"d"}]},{"select":"t","rows":[{"key":-0,"id":"d"},{"key":"0","id":"g","row":{}}]}]}
{"session":-9223372036854775808,"status":"unknown","level":"PC","events":[{"update":"t","rows":[{"key":1e3,"read":"u","id":"w","row":{"x":-1.5e-300,"y":"\ud83d"}}]}]}
`))
	f.Add([]byte("\xEF\xBB\xBF{\"init\":[]}\r\n\n{ \"events\" : [ ] , \"level\" : \"cc\" , \"session\" : 18446744073709551615 }"))
	paths, _ := filepath.Glob("../../examples/sql-*.jsonl")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := sqljsonl.Read(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			formattest.CheckError(t, err)
			return
		}
		roundTripSQL(t, h)
	})
}
