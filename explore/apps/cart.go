package apps

import (
	"fmt"
	"slices"

	"github.com/isocheck/isocheck/explore"
)

// The shopping cart has three users and two items. The carts table is the
// key "cart", user u's line for item i having id u*scItems+i and the field
// cart:id:qty, its quantity. Session i shops as user i mod scUsers.
const (
	scUsers = 3
	scItems = 2
)

func scQty(id int) string { return field("cart", id, "qty") }

func shoppingCart(nsessions, ntxns int, seed int64) *explore.Program {
	r := newRand(seed)
	var touched []int // the cart lines the program touches
	p := &explore.Program{}
	p.Sessions = sessions(nsessions, ntxns, func(i, j int) explore.Txn {
		u := i % scUsers
		item := r.IntN(scItems)
		if id := u*scItems + item; !slices.Contains(touched, id) {
			touched = append(touched, id)
		}
		switch k := r.IntN(10); {
		case k < 4:
			return scAdd(u, item, 1+r.IntN(2))
		case k < 6:
			return scGet(u)
		case k < 8:
			return scRemove(u, item)
		default:
			return scChange(u, item, 1+r.IntN(3))
		}
	})
	slices.Sort(touched)
	p.Final = &explore.Txn{Name: "check-carts", Body: func(tx *explore.Tx) { scCheck(tx, touched) }}
	return p
}

// scAdd adds q of item to user u's cart.
func scAdd(u, item, q int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("add(u%d,i%d,%d)", u, item, q), Body: func(tx *explore.Tx) {
		cart := tx.Read("cart")
		id := u*scItems + item
		if explore.SetHas(cart, id) {
			tx.Write(scQty(id), tx.Read(scQty(id))+explore.Value(q))
			return
		}
		tx.Write("cart", explore.SetAdd(cart, id))
		tx.Write(scQty(id), explore.Value(q))
	}}
}

// scGet lists user u's cart.
func scGet(u int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("get(u%d)", u), Body: func(tx *explore.Tx) {
		cart := tx.Read("cart")
		for item := 0; item < scItems; item++ {
			if id := u*scItems + item; explore.SetHas(cart, id) {
				q := tx.Read(scQty(id))
				tx.Assert(q > 0, "user %d's cart lists item %d with quantity %d", u, item, q)
			}
		}
	}}
}

// scRemove removes item from user u's cart.
func scRemove(u, item int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("remove(u%d,i%d)", u, item), Body: func(tx *explore.Tx) {
		cart := tx.Read("cart")
		id := u*scItems + item
		if !explore.SetHas(cart, id) {
			return
		}
		tx.Write("cart", explore.SetRemove(cart, id))
		tx.Write(scQty(id), 0)
	}}
}

// scChange sets the quantity of item in user u's cart to q > 0; it aborts
// when the item is not in the cart.
func scChange(u, item, q int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("change(u%d,i%d,%d)", u, item, q), Body: func(tx *explore.Tx) {
		id := u*scItems + item
		if !explore.SetHas(tx.Read("cart"), id) {
			tx.Abort()
		}
		tx.Write(scQty(id), explore.Value(q))
	}}
}

// scCheck asserts over the final state: an item is in the cart table
// exactly when its line has a positive quantity.
func scCheck(tx *explore.Tx, touched []int) {
	cart := tx.Read("cart")
	for _, id := range touched {
		q := tx.Read(scQty(id))
		u, item := id/scItems, id%scItems
		tx.Assert(q >= 0, "user %d's item %d has quantity %d", u, item, q)
		if q > 0 && !explore.SetHas(cart, id) {
			tx.Assert(false, "user %d added item %d (quantity %d) but it is not in the cart", u, item, q)
		}
		if q <= 0 && explore.SetHas(cart, id) {
			tx.Assert(false, "user %d's cart lists item %d with quantity %d", u, item, q)
		}
	}
}
