package draw

import (
	"math"
	"sort"
)

// Spacing of a Graph's layout.
const (
	colGap     = 64 // between the boxes of neighbouring columns
	laneMargin = 26 // above and below a lane's boxes, for labels
	arcStep    = 14 // between stacked arcs over or under a lane
	maxArcs    = 10 // arcs stack no higher; more share the top level
	laneGap    = 8
	margin     = 16
	// roomStep is how much wider a gap, and higher a lane's margins,
	// grow each time a label finds no free place on its arrow; they
	// grow at most maxRoomTries-1 times.
	roomStep     = 28
	maxRoomTries = 16
	// manyRoutes is the most arrows a picture grows room for more than
	// once: past it, a label that finds no place on its arrow after one
	// round goes to the nearest free place, so that a picture of
	// hundreds of arrows is drawn in a second.
	manyRoutes = 60
)

var laneNameStyle = style{Size: 12, Bold: true, Color: "#374151"}

// lane is one lane placed.
type lane struct {
	name                        string
	top, zoneTop, zoneH, bottom float64
	above, below                int // levels of arcs over and under it
	// room is added to its margins, for labels that found no place.
	room     float64
	nameRect rect
}

// graphLayout is a Graph laid out: its boxes, routes and labels placed.
type graphLayout struct {
	f      *fonts
	boxes  []*box
	byID   map[string]*box
	lanes  []*lane
	routes []*route
	width  float64 // of the lanes' bands
	// colX and colW are where each column starts and how wide it is.
	colX, colW []float64
	// bands are the lanes' backgrounds, widened to the picture's width
	// once that is known.
	bands []*rectShape
	// gapUse counts the elbows through the gap after each column.
	gapUse map[int]int
	// extraGap widens the gaps that many elbows run through, so that
	// their labels find room on the legs leading there.
	extraGap map[int]float64
	// corridorUse counts the detours along each side of each lane.
	corridorUse map[[2]int]int
	// sideUse counts the turns close to each side of each gap (see
	// sideSlot).
	sideUse map[[2]int]int
}

// placeNodes measures every node and puts it in its lane and column.
func (l *graphLayout) placeNodes(g *Graph) {
	l.byID = map[string]*box{}
	perLane := make([][]*box, len(g.Lanes))
	for i, ln := range g.Lanes {
		l.lanes = append(l.lanes, &lane{name: clean(ln.Name, maxLabel)})
		for _, n := range ln.Nodes {
			b := measureNode(l.f, n, i)
			l.boxes = append(l.boxes, b)
			perLane[i] = append(perLane[i], b)
			if _, dup := l.byID[n.ID]; !dup {
				l.byID[n.ID] = b
			}
		}
	}
	assignColumns(l.boxes, perLane)
}

// assignColumns puts boxes in columns by Order: a group of equal Order
// takes as many columns as its largest share of one lane, and within a
// lane the columns increase left to right whatever the Orders say.
func assignColumns(boxes []*box, perLane [][]*box) {
	sorted := append([]*box(nil), boxes...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].order < sorted[j].order })
	next := 0
	for i := 0; i < len(sorted); {
		j := i
		taken := map[int]int{}
		width := 0
		for ; j < len(sorted) && sorted[j].order == sorted[i].order; j++ {
			b := sorted[j]
			b.col = next + taken[b.lane]
			taken[b.lane]++
			width = max(width, taken[b.lane])
		}
		next += width
		i = j
	}
	for _, bs := range perLane {
		for i := 1; i < len(bs); i++ {
			if bs[i].col <= bs[i-1].col {
				bs[i].col = bs[i-1].col + 1
			}
		}
	}
}

// placeGeometry gives lanes their heights and boxes their places, once
// the routes have said how many arcs each lane carries.
func (l *graphLayout) placeGeometry() {
	nameW := 0.0
	for _, ln := range l.lanes {
		nameW = max(nameW, l.f.width(laneNameStyle, ln.name)*slack)
	}
	left := nameW + 24
	var colW []float64
	for _, b := range l.boxes {
		for len(colW) <= b.col {
			colW = append(colW, 0)
		}
		colW[b.col] = max(colW[b.col], b.w)
	}
	colX := make([]float64, len(colW))
	x := left
	for c, w := range colW {
		colX[c] = x
		x += w + l.gap(c)
	}
	l.width = max(x-colGap+16, left+120)
	l.colX, l.colW = colX, colW
	zoneH := make([]float64, len(l.lanes))
	for _, b := range l.boxes {
		zoneH[b.lane] = max(zoneH[b.lane], b.h)
	}
	y := 0.0
	for i, ln := range l.lanes {
		ln.top = y
		ln.zoneTop = y + laneMargin + ln.room + arcStep*float64(ln.above)
		ln.zoneH = max(zoneH[i], 40)
		ln.bottom = ln.zoneTop + ln.zoneH + laneMargin + ln.room + arcStep*float64(ln.below)
		h := laneNameStyle.Size * 1.3
		ln.nameRect = rect{X: 6, Y: ln.zoneTop + ln.zoneH/2 - h/2, W: nameW + 4, H: h}
		y = ln.bottom + laneGap
	}
	for _, b := range l.boxes {
		ln := l.lanes[b.lane]
		b.r = rect{X: colX[b.col] + (colW[b.col]-b.w)/2, Y: ln.zoneTop, W: b.w, H: b.h}
	}
}

// lay places the boxes and routes the arrows between them, widening
// the gaps that many arrows run through.
func (l *graphLayout) lay() {
	l.gapUse, l.corridorUse, l.sideUse = nil, nil, nil
	l.placeGeometry()
	for _, r := range l.routes {
		l.path(r)
	}
	if l.widenBusyGaps() {
		l.placeGeometry()
		for _, r := range l.routes {
			l.path(r)
		}
	}
}

// makeRoom widens the gaps and lanes the stuck routes run through, so
// that their arrows grow longer and leave room for their labels.
func (l *graphLayout) makeRoom(stuck []*route) {
	if l.extraGap == nil {
		l.extraGap = map[int]float64{}
	}
	cols, lanes := map[int]float64{}, map[int]bool{}
	for _, r := range stuck {
		lo, hi := min(r.from.col, r.to.col), max(r.from.col, r.to.col)
		if r.shape == straight {
			// Its arrow runs only through the gaps between its boxes,
			// and parallel ones each need a stretch of their own.
			for c := lo; c < hi; c++ {
				cols[c] = max(cols[c], r.labelW*slack+8+2*labelGap)
			}
			continue
		}
		for c := max(lo-1, 0); c <= hi && c < len(l.colW); c++ {
			cols[c] = max(cols[c], roomStep)
		}
		for ln := min(r.from.lane, r.to.lane); ln <= max(r.from.lane, r.to.lane); ln++ {
			lanes[ln] = true
		}
	}
	for c, w := range cols {
		l.extraGap[c] += w
	}
	for ln := range lanes {
		l.lanes[ln].room += roomStep / 2
	}
}

// gap is the width of the gap after column c.
func (l *graphLayout) gap(c int) float64 { return colGap + l.extraGap[c] }

// widenBusyGaps widens each gap that more than one elbow runs through,
// and says whether it widened any (the routes must then be laid again).
func (l *graphLayout) widenBusyGaps() bool {
	widened := false
	for c, n := range l.gapUse {
		if n > 1 && l.extraGap[c] == 0 {
			if l.extraGap == nil {
				l.extraGap = map[int]float64{}
			}
			l.extraGap[c] = math.Min(150, 30*float64(n-1))
			widened = true
		}
	}
	l.gapUse, l.corridorUse, l.sideUse = nil, nil, nil
	return widened
}

// drawLanes paints the lanes' bands and names.
func (l *graphLayout) drawLanes() []item {
	var items []item
	for i, ln := range l.lanes {
		fill := "#f3f4f6"
		if i%2 == 1 {
			fill = "#f9fafb"
		}
		band := &rectShape{X: 0, Y: ln.top, W: l.width, H: ln.bottom - ln.top, Radius: 4, paint: paint{Fill: fill}}
		l.bands = append(l.bands, band)
		items = append(items, item{Rect: band})
		r := ln.nameRect
		items = append(items, text(r.X+2, r.Y+r.H/2+laneNameStyle.Size*0.35, laneNameStyle, "start", ln.name))
	}
	return items
}
