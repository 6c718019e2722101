package draw

// Styles of the text around a picture.
var (
	titleStyle   = style{Size: 16, Bold: true, Color: "#111111"}
	captionStyle = style{Size: 12, Color: "#374151"}
	legendStyle  = style{Size: 11, Color: "#374151"}
	noteStyle    = style{Size: 11, Color: "#4b5563"}
)

// Bounds on the text around a picture.
const (
	maxTitle        = 120
	maxCaptionLines = 30
	maxNoteLines    = 40
)

// document stacks a picture's parts top to bottom: heading, body,
// legend, notes.
type document struct {
	f     *fonts
	wrapW float64
	width float64 // widest part so far, margins excluded
	y     float64 // where the next part goes
	items []item
}

func newDocument(f *fonts, wrapW float64) *document {
	return &document{f: f, wrapW: wrapW, y: margin}
}

func (d *document) grow(w float64) { d.width = max(d.width, w) }

// heading sets the title and the caption's lines, wrapped.
func (d *document) heading(title string, caption []string) {
	if t := clean(title, maxTitle); t != "" {
		d.y += titleStyle.Size
		it := fitted(d.f, margin, d.y, titleStyle, "start", t)
		it.Text.Class = "title"
		d.items = append(d.items, it)
		d.grow(d.f.width(titleStyle, t) * slack)
		d.y += 8
	}
	d.lines(captionStyle, caption, maxCaptionLines, "caption")
	d.y += 8
}

// lines sets paragraphs in st, each wrapped to the document's width, at
// most max lines in all.
func (d *document) lines(st style, paras []string, limit int, class string) {
	n := 0
	for _, p := range paras {
		for _, line := range d.f.wrap(st, clean(p, maxText), d.wrapW) {
			if n == limit {
				return
			}
			n++
			d.y += st.Size + 4
			it := fitted(d.f, margin, d.y, st, "start", line)
			it.Text.Class = class
			d.items = append(d.items, it)
			d.grow(d.f.width(st, line) * slack)
		}
	}
}

// legend sets one line per entry: a sample of the stroke, its meaning.
func (d *document) legend(entries []legendEntry) {
	for _, e := range entries {
		d.y += 16
		mid := d.y - 4
		d.items = append(d.items, item{Path: &pathShape{
			Segs:  []seg{{Op: 'M', P: pt{margin, mid}}, {Op: 'L', P: pt{margin + 30, mid}}},
			paint: paint{Stroke: e.color, StrokeWidth: e.width, Dash: e.dash},
		}})
		it := fitted(d.f, margin+38, d.y, legendStyle, "start", e.meaning)
		it.Text.Class = "legend"
		d.items = append(d.items, it)
		d.grow(38 + d.f.width(legendStyle, e.meaning)*slack)
	}
}

// notes sets the notes under the legend.
func (d *document) notes(notes []string) {
	if len(notes) > 0 {
		d.y += 6
	}
	d.lines(noteStyle, notes, maxNoteLines, "note")
}

// scene is the document finished, with margins all round.
func (d *document) scene(label string) *scene {
	return &scene{Width: d.width + 2*margin, Height: d.y + margin, Label: label, Items: d.items}
}

// shift moves items by dx, dy.
func shift(items []item, dx, dy float64) {
	for _, it := range items {
		switch {
		case it.Rect != nil:
			it.Rect.X += dx
			it.Rect.Y += dy
		case it.Path != nil:
			for i := range it.Path.Segs {
				s := &it.Path.Segs[i]
				s.C1 = pt{s.C1.X + dx, s.C1.Y + dy}
				s.C2 = pt{s.C2.X + dx, s.C2.Y + dy}
				s.P = pt{s.P.X + dx, s.P.Y + dy}
			}
		case it.Text != nil:
			it.Text.X += dx
			it.Text.Y += dy
		case it.Group != nil:
			shift(it.Group.Items, dx, dy)
		}
	}
}
