package apps

import (
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/explore"
)

// Twitter has three users. The follows table is the key "follows", user a
// following user b having id a*twUsers+b; the tweets table is the key
// "tweets", with the field tweet:id:author (the author plus one). Tweet
// ids are fixed by the program: the j-th transaction of session i
// publishes tweet i*txns+j. Session i is user i mod twUsers.
const twUsers = 3

func twAuthor(id int) string { return field("tweet", id, "author") }

func twitter(nsessions, ntxns int, seed int64) *explore.Program {
	r := newRand(seed)
	var tweets []int        // every tweet id the program may publish
	mine := map[int][]int{} // the tweets each session published so far
	p := &explore.Program{}
	p.Sessions = sessions(nsessions, ntxns, func(i, j int) explore.Txn {
		u := i % twUsers
		other := (u + 1 + r.IntN(twUsers-1)) % twUsers
		switch k := r.IntN(10); {
		case k < 3:
			return twFollow(u, other)
		case k < 6:
			id := (i*ntxns + j) % 63
			tweets = append(tweets, id)
			mine[i] = append(mine[i], id)
			return twPublish(u, id)
		case k < 7:
			return twFollowers(u)
		default:
			own := r.IntN(2) == 0
			return twTimeline(u, own, append([]int(nil), mine[i]...))
		}
	})
	p.Final = &explore.Txn{Name: "check-tweets", Body: func(tx *explore.Tx) { twCheck(tx, tweets) }}
	return p
}

// twFollow makes user a follow user b.
func twFollow(a, b int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("follow(u%d,u%d)", a, b), Body: func(tx *explore.Tx) {
		f := tx.Read("follows")
		if !explore.SetHas(f, a*twUsers+b) {
			tx.Write("follows", explore.SetAdd(f, a*twUsers+b))
		}
	}}
}

// twPublish publishes tweet id by user a.
func twPublish(a, id int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("tweet(u%d,t%d)", a, id), Body: func(tx *explore.Tx) {
		tx.Write("tweets", explore.SetAdd(tx.Read("tweets"), id))
		tx.Write(twAuthor(id), explore.Value(a+1))
	}}
}

// twFollowers lists user a's followers.
func twFollowers(a int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("followers(u%d)", a), Body: func(tx *explore.Tx) {
		f := tx.Read("follows")
		for b := 0; b < twUsers; b++ {
			tx.Assert(!explore.SetHas(f, b*twUsers+b), "user %d follows themself", b)
		}
	}}
}

// twTimeline lists the tweets of user a (own) or of the users a follows.
// Every listed tweet must have its author's row, and the tweets mine,
// which the session published earlier, must be among user a's own.
func twTimeline(a int, own bool, mine []int) explore.Txn {
	name := "timeline"
	if own {
		name = "tweets"
	}
	return explore.Txn{Name: fmt.Sprintf("%s(u%d)", name, a), Body: func(tx *explore.Tx) {
		var f explore.Value
		if !own {
			f = tx.Read("follows")
		}
		set := tx.Read("tweets")
		var shown []int // the tweets the page shows
		for _, id := range explore.SetIDs(set) {
			author := int(tx.Read(twAuthor(id))) - 1
			tx.Assert(author >= 0, "tweet %d is listed but has no author", id)
			if own && author == a || !own && author >= 0 && explore.SetHas(f, a*twUsers+author) {
				shown = append(shown, id)
			}
		}
		if own {
			for _, id := range mine {
				tx.Assert(slices.Contains(shown, id), "user %d published tweet %d but does not see it", a, id)
			}
		}
	}}
}

// twCheck asserts over the final state: every published tweet is in the
// tweets table.
func twCheck(tx *explore.Tx, tweets []int) {
	set := tx.Read("tweets")
	for _, id := range tweets {
		if a := tx.Read(twAuthor(id)); a != 0 && !explore.SetHas(set, id) {
			tx.Assert(false, "user %d published tweet %d but it is not in the tweets table", a-1, id)
		}
	}
}
