package apps

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/isocheck/isocheck/explore"
)

// App is an example application of Bouajjani et al. (PLDI 2023) §7.2.
type App struct {
	// Name is "shopping-cart", "twitter", "courseware", "wikipedia" or
	// "tpcc".
	Name string
	// Doc says in one line what the application models and what its
	// assertions say.
	Doc string
	// Program returns a client program of the application: sessions
	// sessions of txns transactions each, whose types and arguments are
	// drawn from seed (the same seed gives the same program), and a final
	// transaction that asserts over the final state.
	Program func(sessions, txns int, seed int64) *explore.Program
}

// apps is the read-only table All returns copies of.
var apps = [...]App{
	{
		Name:    "shopping-cart",
		Doc:     "users add, get, remove items of their carts and change their quantities; a listed item has a positive quantity, and an item is in the cart table exactly when its row has a quantity (a lost update of the table loses an added item)",
		Program: shoppingCart,
	},
	{
		Name:    "twitter",
		Doc:     "users follow users, publish tweets, get followers, tweets and timelines; a listed tweet or follower has its row, and a published tweet is in its author's tweets (a lost update of the tweets table loses one)",
		Program: twitter,
	},
	{
		Name:    "courseware",
		Doc:     "courses are opened, closed, deleted; students enroll in an open course below capacity; no course has more students than its capacity, none told enrolled is missing, none is in a deleted course (every session first enrolls into course 0, of capacity 1: under RC, RA and CC two of them read the same enrollments and both commit, one insert is lost, a lost update; under RC the final check may also read a stale enrollments table)",
		Program: courseware,
	},
	{
		Name:    "wikipedia",
		Doc:     "registered and anonymous users get pages, watch and unwatch them, and update them; a page's text is of its latest revision (a fractured read under RC breaks it), and a page's latest revision counts its revisions (a lost update breaks it)",
		Program: wikipedia,
	},
	{
		Name:    "tpcc",
		Doc:     "TPC-C's new order, payment, order status, delivery and stock level over one warehouse; a district's next order id matches its orders, the warehouse's year-to-date equals its districts', stock is never negative, and a customer's last order exists",
		Program: tpcc,
	},
}

// All returns the applications, in the order of Bouajjani et al.
// (PLDI 2023) §7.2.
func All() []App {
	return append([]App(nil), apps[:]...)
}

// Lookup returns the application named name.
func Lookup(name string) (App, bool) {
	for _, a := range apps {
		if a.Name == name {
			return a, true
		}
	}
	return App{}, false
}

// newRand returns the deterministic source of a program's choices.
func newRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x1d0c4e))
}

// sessions builds n sessions of m transactions each, the j-th of session i
// made by txn.
func sessions(n, m int, txn func(i, j int) explore.Txn) []explore.Session {
	ss := make([]explore.Session, n)
	for i := range ss {
		ss[i].Name = fmt.Sprintf("client%d", i)
		for j := 0; j < m; j++ {
			ss[i].Txns = append(ss[i].Txns, txn(i, j))
		}
	}
	return ss
}

// count returns the number of ids in set s that lie in [lo, lo+n).
func count(s explore.Value, lo, n int) int {
	c := 0
	for _, id := range explore.SetIDs(s) {
		if id >= lo && id < lo+n {
			c++
		}
	}
	return c
}

// field names the key of a row's field, e.g. field("course", 2, "cap") is
// "course:2:cap". Transaction bodies build keys at every replay, so it
// avoids fmt.
func field(table string, id int, name string) string {
	return table + ":" + strconv.Itoa(id) + ":" + name
}
