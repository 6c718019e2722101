package dbcop

// DbcopNoTime is the time Write gives the header, for the tests.
const DbcopNoTime = dbcopNoTime
