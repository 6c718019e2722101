package report

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// parsePage parses a page and returns its document, or why it is not a
// safe, self-contained page: not UTF-8, unparsable, with an element that
// runs or embeds something, an event handler, a src, a link other than
// to #an-anchor, or a CSS url() other than url(#an-id) in a style.
func parsePage(page []byte) (*html.Node, error) {
	if !utf8.Valid(page) {
		return nil, fmt.Errorf("the page is not valid UTF-8")
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("parsing the page: %w", err)
	}
	var bad error
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode || bad != nil {
			return
		}
		if n.Data == "style" {
			bad = externalURL("<style>", text(n))
		}
		switch n.Data {
		case "script", "iframe", "object", "embed", "link", "img", "base", "form", "frame", "foreignObject", "foreignobject":
			bad = fmt.Errorf("the page has a <%s> element", n.Data)
			return
		}
		for _, a := range n.Attr {
			key := strings.ToLower(a.Key)
			switch {
			case strings.HasPrefix(key, "on"):
				bad = fmt.Errorf("<%s> has the attribute %s", n.Data, a.Key)
			case key == "src" || key == "srcset" || key == "action":
				bad = fmt.Errorf("<%s> has the attribute %s=%q", n.Data, a.Key, a.Val)
			case key == "href" && !strings.HasPrefix(a.Val, "#"):
				bad = fmt.Errorf("<%s> links to %q", n.Data, a.Val)
			case n.Data == "meta" && key == "http-equiv" && !strings.EqualFold(a.Val, "Content-Security-Policy"):
				bad = fmt.Errorf("<meta http-equiv=%q>", a.Val)
			case cssAttributes[key]:
				bad = cmp.Or(bad, externalURL(n.Data+" "+a.Key, a.Val))
			}
		}
	})
	return doc, bad
}

// cssAttributes are the attributes whose values may hold a CSS url().
var cssAttributes = map[string]bool{
	"style": true, "fill": true, "stroke": true, "filter": true, "mask": true, "clip-path": true,
	"marker-start": true, "marker-mid": true, "marker-end": true, "cursor": true,
}

// externalURL returns an error if css holds a url() that is not of the
// form url(#an-id).
func externalURL(where, css string) error {
	for rest := strings.ToLower(css); ; {
		i := strings.Index(rest, "url(")
		if i < 0 {
			return nil
		}
		rest = strings.TrimLeft(rest[i+len("url("):], " '\"")
		if !strings.HasPrefix(rest, "#") {
			return fmt.Errorf("%s holds url(%.20s", where, rest)
		}
	}
}

// walk calls f on n and every node under it, in document order.
func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

// find returns the elements under n named tag ("" for any) whose class
// attribute holds class ("" for any).
func find(n *html.Node, tag, class string) []*html.Node {
	var found []*html.Node
	walk(n, func(n *html.Node) {
		if n.Type == html.ElementNode && (tag == "" || n.Data == tag) && (class == "" || hasClass(n, class)) {
			found = append(found, n)
		}
	})
	return found
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// attr returns n's attribute key, or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text returns the text under n.
func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
	})
	return b.String()
}

// TestParsePage checks that parsePage rejects what the page must never
// hold, so that the tests using it can fail.
func TestParsePage(t *testing.T) {
	const ok = `<!DOCTYPE html><html><head><style>a{}</style></head><body><a href="#x">x</a><svg><path marker-end="url(#arrow)"/></svg></body></html>`
	if _, err := parsePage([]byte(ok)); err != nil {
		t.Fatalf("parsePage rejects a safe page: %v", err)
	}
	for _, bad := range []string{
		`<script>alert(1)</script>`,
		`<img src="x.png">`,
		`<p onclick="f()">x</p>`,
		`<a href="https://example.com">x</a>`,
		`<iframe></iframe>`,
		`<svg><image href="x.png"/></svg>`,
		`<svg><foreignObject></foreignObject></svg>`,
		`<style>body{background:url(x.png)}</style>`,
		`<p style="background: url('x.png')">x</p>`,
		`<meta http-equiv="refresh" content="0;url=x">`,
		"\xff",
	} {
		if _, err := parsePage([]byte("<!DOCTYPE html><html><body>" + bad + "</body></html>")); err == nil {
			t.Errorf("parsePage accepts %s", bad)
		}
	}
}
