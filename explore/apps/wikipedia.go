package apps

import (
	"fmt"

	"github.com/isocheck/isocheck/explore"
)

// Wikipedia has two pages and two registered users. The watch list table
// is the key "watchlist", user u watching page p having id u*wpPages+p;
// the pages table has the fields page:p:latest (its latest revision
// number, 0 before the first update) and page:p:text (the text of that
// revision: the revision number times 64 plus the id of the update that
// wrote it); the revisions table is the key "revisions", with the field
// rev:id:page (the page plus one). Revision ids are fixed by the program:
// the j-th transaction of session i writes revision i*txns+j. Session i is
// user i mod wpUsers.
const (
	wpPages = 2
	wpUsers = 2
)

func wpLatest(p int) string { return field("page", p, "latest") }
func wpText(p int) string   { return field("page", p, "text") }
func wpRevPage(id int) string {
	return field("rev", id, "page")
}

func wikipedia(nsessions, ntxns int, seed int64) *explore.Program {
	r := newRand(seed)
	var revs []int // every revision id the program may write
	p := &explore.Program{}
	p.Sessions = sessions(nsessions, ntxns, func(i, j int) explore.Txn {
		u := i % wpUsers
		page := r.IntN(wpPages)
		switch k := r.IntN(10); {
		case k < 2:
			return wpGetPage(-1, page)
		case k < 4:
			return wpGetPage(u, page)
		case k < 5:
			return wpWatch(u, page, true)
		case k < 6:
			return wpWatch(u, page, false)
		default:
			id := (i*ntxns + j) % 63
			revs = append(revs, id)
			return wpUpdate(u, page, id)
		}
	})
	p.Final = &explore.Txn{Name: "check-pages", Body: func(tx *explore.Tx) { wpCheck(tx, revs) }}
	return p
}

// wpGetPage gets page p for user u, or for an anonymous user when u < 0.
// A registered user's request also reads the watch list.
func wpGetPage(u, p int) explore.Txn {
	name := fmt.Sprintf("get(u%d,p%d)", u, p)
	if u < 0 {
		name = fmt.Sprintf("get(anon,p%d)", p)
	}
	return explore.Txn{Name: name, Body: func(tx *explore.Tx) {
		if u >= 0 {
			tx.Read("watchlist")
		}
		latest := tx.Read(wpLatest(p))
		text := tx.Read(wpText(p))
		tx.Assert(text/64 == latest, "page %d shows the text of revision %d, its latest revision is %d", p, text/64, latest)
	}}
}

// wpWatch adds page p to user u's watch list, or removes it.
func wpWatch(u, p int, add bool) explore.Txn {
	name := "watch"
	if !add {
		name = "unwatch"
	}
	return explore.Txn{Name: fmt.Sprintf("%s(u%d,p%d)", name, u, p), Body: func(tx *explore.Tx) {
		w := tx.Read("watchlist")
		id := u*wpPages + p
		switch {
		case add && !explore.SetHas(w, id):
			tx.Write("watchlist", explore.SetAdd(w, id))
		case !add && explore.SetHas(w, id):
			tx.Write("watchlist", explore.SetRemove(w, id))
		}
	}}
}

// wpUpdate makes user u write revision id of page p.
func wpUpdate(u, p, id int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("update(u%d,p%d,r%d)", u, p, id), Body: func(tx *explore.Tx) {
		n := tx.Read(wpLatest(p)) + 1
		tx.Write("revisions", explore.SetAdd(tx.Read("revisions"), id))
		tx.Write(wpRevPage(id), explore.Value(p+1))
		tx.Write(wpLatest(p), n)
		tx.Write(wpText(p), n*64+explore.Value(id))
	}}
}

// wpCheck asserts over the final state: every written revision is in the
// revisions table, and a page's latest revision number counts its
// revisions.
func wpCheck(tx *explore.Tx, revs []int) {
	set := tx.Read("revisions")
	n := make([]explore.Value, wpPages)
	for _, id := range revs {
		p := int(tx.Read(wpRevPage(id))) - 1
		if p < 0 {
			continue
		}
		tx.Assert(explore.SetHas(set, id), "revision %d of page %d is not in the revisions table", id, p)
		n[p]++
	}
	for p := range n {
		latest := tx.Read(wpLatest(p))
		tx.Assert(latest == n[p], "page %d has %d revisions, its latest revision is %d", p, n[p], latest)
	}
}
