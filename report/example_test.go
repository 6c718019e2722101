package report_test

import (
	"bytes"
	"fmt"
	"log"
	"regexp"

	"github.com/isocheck/isocheck/report"
	"github.com/isocheck/isocheck/verdict"
)

// A page for a history that keeps the level checked: its title, and the
// verdict banner, in green, that says so in words.
func ExamplePage_WriteHTML() {
	p := &report.Page{
		Title:   "bank.edn",
		Command: "isocheck check --level SER bank.edn",
		Levels:  []report.Level{{Name: "SER", Verdict: verdict.Satisfied}},
		Facts:   []report.Fact{{Name: "transactions", Value: "120"}},
	}
	var page bytes.Buffer
	if err := p.WriteHTML(&page); err != nil {
		log.Fatal(err)
	}
	fmt.Println(regexp.MustCompile(`<title>.*</title>`).FindString(page.String()))
	fmt.Println(regexp.MustCompile(`<p class="verdict.*`).FindString(page.String()))
	// Output:
	// <title>isocheck: bank.edn</title>
	// <p class="verdict satisfied" role="status">SER satisfied</p>
}
