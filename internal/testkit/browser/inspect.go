package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// layoutJS is a function of the list of selectors that returns the
// document's title and size and the boxes of the matching elements.
//
//go:embed layout.js
var layoutJS string

// ErrNoChromium is returned by Inspect when no browser is given and Find
// finds none.
var ErrNoChromium = errors.New("no Chromium found (install chromium, or set ISOCHECK_CHROMIUM)")

// Unavailable reports whether err, from Inspect, says that there is no
// browser to run, rather than that the page could not be inspected: a
// test may skip then, where a browser is not required.
func Unavailable(err error) bool {
	return errors.Is(err, ErrNoChromium) || errors.Is(err, ErrCannotStart)
}

// ErrCannotStart is returned (wrapped) by Inspect when the browser does
// not start, as a snap's stub or a browser without its libraries does.
var ErrCannotStart = errors.New("the browser did not start")

// blockedSchemes are the schemes of the URLs the browser must not fetch:
// a report is read from disk and must reach nothing else.
var blockedSchemes = []string{"http", "https", "ws", "wss", "ftp"}

// Inspect opens the HTML file at path in a fresh headless Chromium, waits
// for it to load and reports what a reader would see. The browser runs
// with a throwaway profile, makes no request beyond files, and is gone,
// with its profile, when Inspect returns, whether it succeeded, failed or
// ctx ended.
func Inspect(ctx context.Context, path string, opts Options) (*Page, error) {
	if opts.Width == 0 {
		opts.Width = 1280
	}
	if opts.Height == 0 {
		opts.Height = 900
	}
	if opts.Chromium == "" {
		p, ok := Find()
		if !ok {
			return nil, ErrNoChromium
		}
		opts.Chromium = p
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("inspecting %s: %w", path, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("inspecting %s: %w", path, err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()

	profile, err := os.MkdirTemp(opts.TempDir, "isocheck-chromium-")
	if err != nil {
		return nil, fmt.Errorf("inspecting %s: making a browser profile: %w", path, err)
	}
	// The browser makes its singleton socket and, with
	// disable-dev-shm-usage, its shared memory files under TMPDIR
	// (org.chromium.Chromium.*), which a browser killed leaves behind:
	// a directory of their own, removed with the profile. Not inside the
	// profile, whose path may be too long for a socket's.
	scratch, err := os.MkdirTemp("", "isocheck-chromium-tmp-")
	if err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("inspecting %s: making a browser temporary directory: %w", path, err)
	}
	defer func() {
		killProcessesUsing("--user-data-dir=" + profile)
		os.RemoveAll(profile)
		os.RemoveAll(scratch)
	}()

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(opts.Chromium),
		chromedp.Flag("headless", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(opts.Width, opts.Height),
		chromedp.UserDataDir(profile),
		chromedp.Env("TMPDIR="+scratch),
	)
	// Cancelling the allocator kills the browser and waits for it.
	defer cancelAlloc()

	var rec recorder
	// chromedp logs what goes wrong after a tab is cancelled; Inspect
	// reports its errors through its result.
	quiet := func(string, ...any) {}
	tabCtx, cancelTab := chromedp.NewContext(allocCtx,
		chromedp.WithListener(rec.listen), chromedp.WithErrorf(quiet), chromedp.WithLogf(quiet))
	defer cancelTab()

	// The first action starts the browser and opens its tab.
	if err := chromedp.Do(tabCtx); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("inspecting %s: starting %s: %w", path, opts.Chromium, err)
		}
		return nil, fmt.Errorf("inspecting %s: %w: %s: %w", path, ErrCannotStart, opts.Chromium, err)
	}
	var patterns []*network.BlockPattern
	for _, s := range blockedSchemes {
		patterns = append(patterns, &network.BlockPattern{URLPattern: s + "://*:*/*", Block: true})
	}
	err = chromedp.Do(tabCtx,
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: patterns})
			return err
		}),
		chromedp.EmulateViewport(int64(opts.Width), int64(opts.Height)),
		chromedp.Navigate(pageURL),
	)
	if err != nil {
		return nil, fmt.Errorf("inspecting %s: loading it in %s: %w", path, opts.Chromium, err)
	}
	selectors, err := json.Marshal(append([]string{}, opts.Selectors...))
	if err != nil {
		return nil, fmt.Errorf("inspecting %s: %w", path, err)
	}
	group, err := json.Marshal(opts.Group)
	if err != nil {
		return nil, fmt.Errorf("inspecting %s: %w", path, err)
	}
	raw, err := chromedp.Run(tabCtx, chromedp.Evaluate[[]byte]("("+layoutJS+")("+string(selectors)+", "+string(group)+")"))
	if err != nil {
		return nil, fmt.Errorf("inspecting %s: measuring its layout: %w", path, err)
	}
	var layout struct {
		Title         string  `json:"title"`
		ViewportWidth float64 `json:"viewportWidth"`
		ScrollWidth   float64 `json:"scrollWidth"`
		ScrollHeight  float64 `json:"scrollHeight"`
		Boxes         []struct {
			Selector string            `json:"selector"`
			Text     string            `json:"text"`
			Data     map[string]string `json:"data"`
			X        float64           `json:"x"`
			Y        float64           `json:"y"`
			Width    float64           `json:"width"`
			Height   float64           `json:"height"`
			Visible  bool              `json:"visible"`
			FontSize float64           `json:"fontSize"`
			SVG      int               `json:"svg"`
			Group    int               `json:"group"`
		} `json:"boxes"`
	}
	if err := json.Unmarshal(raw, &layout); err != nil {
		return nil, fmt.Errorf("inspecting %s: reading its layout: %w", path, err)
	}
	p := &Page{
		Title:         layout.Title,
		ViewportWidth: layout.ViewportWidth,
		ScrollWidth:   layout.ScrollWidth,
		ScrollHeight:  layout.ScrollHeight,
	}
	for _, b := range layout.Boxes {
		p.Boxes = append(p.Boxes, Box(b))
	}
	if opts.Screenshot {
		shot := chromedp.FullScreenshot(100)
		if q := opts.ScreenshotJPEG; q > 0 {
			shot = firstScreenJPEG(min(q, 99))
		}
		if p.Screenshot, err = chromedp.Run(tabCtx, shot); err != nil {
			return nil, fmt.Errorf("inspecting %s: taking a screenshot: %w", path, err)
		}
	}
	// Every event the browser sent before the last reply has been seen.
	p.Requests, p.Console = rec.results(pageURL)
	return p, nil
}

// recorder keeps the events of a tab that Page reports. Its listen runs
// on the tab's reading goroutine; results on the caller's.
type recorder struct {
	mu       sync.Mutex
	requests []Request
	console  []Message
}

func (r *recorder) listen(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if ev.Request != nil {
			r.requests = append(r.requests, Request{URL: ev.Request.URL, Type: string(ev.Type)})
		}
	case *runtime.EventConsoleAPICalled:
		m := Message{Level: consoleLevel(ev.Type), Text: argsText(ev.Args)}
		if st := ev.StackTrace; st != nil && len(st.CallFrames) > 0 {
			m.URL, m.Line = st.CallFrames[0].URL, int(st.CallFrames[0].LineNumber)+1
		}
		r.console = append(r.console, m)
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		if d == nil {
			return
		}
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		r.console = append(r.console, Message{Level: "exception", Text: text, URL: d.URL, Line: int(d.LineNumber) + 1})
	case *log.EventEntryAdded:
		e := ev.Entry
		if e == nil {
			return
		}
		level := string(e.Level)
		if level == "verbose" {
			level = "log"
		}
		m := Message{Level: level, Text: e.Text, URL: e.URL}
		if e.LineNumber > 0 {
			m.Line = int(e.LineNumber) + 1
		}
		r.console = append(r.console, m)
	}
}

// results returns the requests other than for the page itself (and for
// data URLs), and the console's messages.
func (r *recorder) results(pageURL string) ([]Request, []Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var requests []Request
	for _, q := range r.requests {
		if q.URL == pageURL || strings.HasPrefix(q.URL, "data:") {
			continue
		}
		requests = append(requests, q)
	}
	return requests, append([]Message(nil), r.console...)
}

// consoleLevel names a console API call's level as Message.Level does.
func consoleLevel(t runtime.ConsoleAPICalledType) string {
	switch t {
	case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
		return "error"
	case runtime.ConsoleAPICalledTypeWarning:
		return "warning"
	case runtime.ConsoleAPICalledTypeInfo:
		return "info"
	}
	return "log"
}

// argsText writes a console call's arguments as text: strings as they
// are, other values as the browser describes them.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		var s string
		switch {
		case a.Type == runtime.RemoteObjectTypeString && json.Unmarshal(a.Value, &s) == nil:
			parts = append(parts, s)
		case a.Description != "":
			parts = append(parts, a.Description)
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

// firstScreenJPEG takes a JPEG of the viewport at the given quality.
func firstScreenJPEG(quality int) chromedp.Action[[]byte] {
	return func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		q := int64(quality)
		r, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: &q})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
}
