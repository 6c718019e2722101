package jepsen

// JSONInt is jsonInt, for the tests.
var JSONInt = jsonInt
