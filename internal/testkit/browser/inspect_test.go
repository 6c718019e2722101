package browser

import (
	"bytes"
	"context"
	"errors"
	"image/jpeg"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// chromium returns the browser to test with. Without one the test is
// skipped, or fails where ISOCHECK_BROWSER_REQUIRED=1 (CI).
func chromium(t *testing.T) string {
	t.Helper()
	p, ok := Find()
	if !ok {
		unavailable(t, ErrNoChromium)
	}
	return p
}

// unavailable skips the test for err, which says there is no browser to
// run, or fails it where ISOCHECK_BROWSER_REQUIRED=1 (CI).
func unavailable(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("ISOCHECK_BROWSER_REQUIRED") == "1" {
		t.Fatalf("%v, and ISOCHECK_BROWSER_REQUIRED=1", err)
	}
	t.Skip(err)
}

// writePage writes an HTML page into a fresh directory and returns its path.
func writePage(t *testing.T, html string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// inspect runs Inspect with a minute to spare and fails the test on error.
func inspect(t *testing.T, path string, opts Options) *Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Inspect(ctx, path, opts)
	if Unavailable(err) {
		unavailable(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInspectVisibility(t *testing.T) {
	opts := Options{
		Chromium:   chromium(t),
		Width:      800,
		Height:     600,
		Selectors:  []string{".item", "g.node"},
		Group:      "section",
		Screenshot: true,
	}
	path := writePage(t, `<!doctype html>
<html><head><title>A handmade page</title>
<style>
body { margin: 0 }
.item { position: absolute; width: 30px; height: 20px }
</style></head><body>
<div class="item" data-name="shown" data-kind="plain" style="left: 100px; top: 50px">shown  text
 here</div>
<div class="item" data-name="none" style="display: none">gone</div>
<div style="display: none"><div class="item" data-name="parent-none">gone</div></div>
<div class="item" data-name="hidden" style="visibility: hidden">hidden</div>
<div style="opacity: 0"><div class="item" data-name="transparent" style="top: 100px">faded</div></div>
<div class="item" data-name="empty" style="width: 0; height: 0"></div>
<div class="item" data-name="far down" style="left: 10px; top: 2000px">far</div>
<section style="position: absolute; top: 300px">
<svg width="200" height="100"><g class="node" data-id="T1"><rect x="10" y="20" width="40" height="30"/></g></svg>
</section>
<script>console.error("boom", 42)</script>
</body></html>`)
	p := inspect(t, path, opts)

	if p.Title != "A handmade page" {
		t.Errorf("Title = %q, want %q", p.Title, "A handmade page")
	}
	visible := map[string]bool{
		"shown": true, "none": false, "parent-none": false, "hidden": false,
		"transparent": false, "empty": false, "far down": true,
	}
	items := p.Select(".item")
	if len(items) != len(visible) {
		t.Fatalf("%d boxes for .item, want %d: %v", len(items), len(visible), items)
	}
	for _, b := range items {
		if want := visible[b.Data["name"]]; b.Visible != want {
			t.Errorf("%s: Visible = %v, want %v", b, b.Visible, want)
		}
	}
	shown := items[0]
	if shown.Text != "shown text here" || shown.Data["kind"] != "plain" || shown.SVG != -1 || shown.Group != -1 {
		t.Errorf("first box = %s (svg %d, group %d), want the text %q, data-kind plain, outside every svg and section",
			shown, shown.SVG, shown.Group, "shown text here")
	}
	if rect(shown) != "100,50 30x20" {
		t.Errorf("first box at %s, want 100,50 30x20", rect(shown))
	}
	if far := items[len(items)-1]; far.Y != 2000 {
		t.Errorf("%s: Y = %v, want 2000 (page coordinates, not the viewport's)", far, far.Y)
	}
	nodes := p.Select("g.node")
	if len(nodes) != 1 || nodes[0].Data["id"] != "T1" || nodes[0].SVG != 0 || nodes[0].Group != 0 || !nodes[0].Visible ||
		rect(nodes[0]) != "10,320 40x30" {
		t.Errorf("g.node boxes = %v, want one, T1 at 10,320 40x30 in svg 0 of section 0", nodes)
	}

	errs := p.Errors()
	if len(errs) != 1 || errs[0].Text != "boom 42" || errs[0].Line != 18 {
		t.Errorf("Errors() = %+v, want console.error's boom 42 from line 18", errs)
	}
	if p.ViewportWidth != 800 || p.ScrollWidth != 800 || p.ScrollHeight < 2020 {
		t.Errorf("viewport %v wide, document %vx%v; want 800, 800 by at least 2020",
			p.ViewportWidth, p.ScrollWidth, p.ScrollHeight)
	}
	img, err := png.Decode(bytes.NewReader(p.Screenshot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() < 2020 {
		t.Errorf("screenshot is %dx%d, want 800 wide and the whole page (at least 2020) high", b.Dx(), b.Dy())
	}
}

func TestInspectFirstScreenJPEG(t *testing.T) {
	path := writePage(t, `<!doctype html><div style="height: 3000px; background: #fdd">tall</div>`)
	p := inspect(t, path, Options{Chromium: chromium(t), Width: 420, Height: 700, Screenshot: true, ScreenshotJPEG: 70})
	img, err := jpeg.Decode(bytes.NewReader(p.Screenshot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 420 || b.Dy() != 700 {
		t.Errorf("screenshot is %dx%d, want the first screen, 420x700", b.Dx(), b.Dy())
	}
}

func TestInspectOverlap(t *testing.T) {
	path := writePage(t, `<!doctype html>
<style>body { margin: 0 } div { position: absolute; width: 50px; height: 20px }</style>
<div class="label" style="left: 0; top: 0">a</div>
<div class="label" style="left: 50px; top: 0">b</div>
<div class="label" style="left: 90px; top: 10px">c</div>
<div class="label" style="left: 0; top: 100px">d</div>`)
	p := inspect(t, path, Options{Chromium: chromium(t), Selectors: []string{".label"}})
	got := Overlaps(p.Select(".label"))
	if len(got) != 1 || got[0][0].Text != "b" || got[0][1].Text != "c" {
		t.Errorf("Overlaps = %v, want only b and c (a and b only touch)", got)
	}
}

func TestInspectFontSize(t *testing.T) {
	path := writePage(t, `<!doctype html>
<style>body { margin: 0; font-size: 16px }</style>
<p class="t" data-name="html">sixteen</p>
<svg viewBox="0 0 400 100" style="width: 200px"><text class="t" data-name="halved" x="0" y="50" font-size="20">ten</text></svg>
<svg viewBox="0 0 100 100" style="width: 100px"><text class="t" data-name="as drawn" x="0" y="50" font-size="12">twelve</text></svg>`)
	p := inspect(t, path, Options{Chromium: chromium(t), Selectors: []string{".t"}})
	want := map[string]float64{"html": 16, "halved": 10, "as drawn": 12}
	for _, b := range p.Select(".t") {
		if got := b.FontSize; math.Abs(got-want[b.Data["name"]]) > 0.01 {
			t.Errorf("%s: FontSize = %v, want %v", b, got, want[b.Data["name"]])
		}
	}
}

func TestInspectRequests(t *testing.T) {
	var hits atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
	}))
	defer server.Close()

	dir := t.TempDir()
	local := filepath.Join(dir, "local.svg")
	if err := os.WriteFile(local, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "page.html")
	page := `<!doctype html><title>requests</title>
<img src="local.svg">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<img src="http://127.0.0.1:9/x.png">
<img src="` + server.URL + `/y.png">`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p := inspect(t, path, Options{Chromium: chromium(t)})

	var urls []string
	for _, r := range p.Requests {
		urls = append(urls, r.URL)
	}
	want := []string{"local.svg", "http://127.0.0.1:9/x.png", server.URL + "/y.png"}
	if len(urls) != len(want) {
		t.Fatalf("Requests = %q, want %q (the page itself and data URLs left out)", urls, want)
	}
	for i, w := range want {
		if !strings.HasSuffix(urls[i], w) {
			t.Errorf("request %d is for %s, want %s", i, urls[i], w)
		}
	}
	if p.Requests[1].Type != "Image" {
		t.Errorf("request for %s is of type %q, want Image", urls[1], p.Requests[1].Type)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the HTTP server got %d requests; the browser must block them", n)
	}
}

func TestInspectLeavesNothingBehind(t *testing.T) {
	browser := chromium(t)
	tests := []struct {
		name    string
		page    string
		timeout time.Duration
		wantErr error
	}{
		{"loaded", `<!doctype html><title>fine</title><p>fine`, time.Minute, nil},
		{"context ends while loading", `<!doctype html><script>for (;;) {}</script>`, 3 * time.Second, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writePage(t, tt.page)
			profiles := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			_, err := Inspect(ctx, path, Options{Chromium: browser, TempDir: profiles})
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Inspect: %v, want %v", err, tt.wantErr)
			}
			if pids := processesUsing(profiles); len(pids) != 0 {
				t.Errorf("processes %v still run with a profile in %s", pids, profiles)
			}
			if left, _ := os.ReadDir(profiles); len(left) != 0 {
				t.Errorf("%d profiles left in %s", len(left), profiles)
			}
		})
	}
}

func TestInspectWithoutChromium(t *testing.T) {
	dir := t.TempDir()
	path := writePage(t, `<!doctype html>`)
	broken := filepath.Join(dir, "broken-chromium")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'install chromium from the snap store' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, browser := range []string{filepath.Join(dir, "no-such-browser"), broken} {
		_, err := Inspect(context.Background(), path, Options{Chromium: browser, TempDir: dir})
		if !Unavailable(err) {
			t.Errorf("Inspect with %s: %v, want an error that says the browser is unavailable", filepath.Base(browser), err)
		}
	}
}
