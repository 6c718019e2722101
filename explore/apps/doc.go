// Package apps holds the five example applications of Bouajjani, Enea and
// Román-Calvo, "Dynamic Partial Order Reduction for Checking Correctness
// against Transaction Isolation Levels" (PLDI 2023), §7.2, as generators of
// client programs for package explore.
//
// The applications are:
//
//   - shopping-cart: users add items to their cart, get the cart, remove
//     items and change their quantities;
//   - twitter: users follow each other, publish tweets, get their
//     followers and their tweets or timeline;
//   - courseware: courses are opened, closed and deleted, students enroll
//     in a course when it is open and below its capacity, and clients get
//     the enrollments of a course;
//   - wikipedia: registered and anonymous users get pages, registered
//     users add pages to and remove them from their watch list, and
//     update pages;
//   - tpcc: TPC-C's five transactions (new order, payment, order status,
//     delivery and stock level) over one warehouse.
//
// SQL tables are modelled as Bouajjani et al. (PLDI 2023) §7.2 do: a key
// per table holds the set of the ids of its rows (see explore.SetAdd), and
// a key per row field holds its value, e.g. "course:1:open". An INSERT or a
// DELETE is a read-modify-write of the table's key, together with writes of
// the row's fields; a SELECT or UPDATE with a WHERE clause reads the
// table's key and then the fields of the rows it selects. The data are tiny
// (two or three users, items, courses or pages; one warehouse) so that
// programs of three sessions of three transactions, the size of theirs,
// explore quickly.
//
// Every application states what going wrong means for it with assertions
// (explore.Tx.Assert) in its transactions and in a final transaction that
// reads the state after all the others (explore.Program.Final). The
// assertions hold in every serial execution, so no serializable history
// breaks them; weaker levels let some of them break, e.g. courseware's
// under Read Committed, where two students may both be told they took the
// last seat of a course.
package apps
