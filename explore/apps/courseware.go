package apps

import (
	"fmt"

	"github.com/isocheck/isocheck/explore"
)

// Courseware has two courses and two students. The courses table is the
// key "courses" with fields course:c:open and course:c:cap; the
// enrollments table is the key "enrollments", an enrollment of student s
// in course c having id c*cwStudents+s and the field enrollment:id:row.
// Course 0 has capacity 1 and course 1 capacity 2; both start open.
const (
	cwCourses  = 2
	cwStudents = 2
)

func cwOpen(c int) string                { return field("course", c, "open") }
func cwCap(c int) string                 { return field("course", c, "cap") }
func cwRow(id int) string                { return field("enrollment", id, "row") }
func cwID(student, c int) int            { return c*cwStudents + student }
func cwCount(s explore.Value, c int) int { return count(s, c*cwStudents, cwStudents) }

func courseware(nsessions, ntxns int, seed int64) *explore.Program {
	r := newRand(seed)
	p := &explore.Program{
		Init: map[string]explore.Value{
			"courses": explore.SetAdd(explore.SetAdd(0, 0), 1),
			cwOpen(0): 1, cwOpen(1): 1,
			cwCap(0): 1, cwCap(1): 2,
		},
		Final: &explore.Txn{Name: "check-courses", Body: cwCheck},
	}
	p.Sessions = sessions(nsessions, ntxns, func(i, j int) explore.Txn {
		if j == 0 {
			// Every session starts by taking a seat in course 0: the
			// sessions race for its one seat.
			return cwEnroll(i%cwStudents, 0)
		}
		c := r.IntN(cwCourses)
		switch k := r.IntN(10); {
		case k < 2:
			return cwEnroll(r.IntN(cwStudents), c)
		case k < 5:
			return cwGetEnrollments(c)
		case k < 7:
			return cwOpenCourse(c)
		case k < 9:
			return cwCloseCourse(c)
		default:
			return cwDeleteCourse(c)
		}
	})
	return p
}

// cwOpenCourse opens course c, inserting it when it was deleted.
func cwOpenCourse(c int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("open(c%d)", c), Body: func(tx *explore.Tx) {
		courses := tx.Read("courses")
		if !explore.SetHas(courses, c) {
			tx.Write("courses", explore.SetAdd(courses, c))
		}
		tx.Write(cwOpen(c), 1)
	}}
}

// cwCloseCourse closes course c to enrollments.
func cwCloseCourse(c int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("close(c%d)", c), Body: func(tx *explore.Tx) {
		if !explore.SetHas(tx.Read("courses"), c) {
			tx.Abort()
		}
		tx.Write(cwOpen(c), 0)
	}}
}

// cwDeleteCourse deletes course c and its enrollments.
func cwDeleteCourse(c int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("delete(c%d)", c), Body: func(tx *explore.Tx) {
		courses := tx.Read("courses")
		if !explore.SetHas(courses, c) {
			tx.Abort()
		}
		tx.Write("courses", explore.SetRemove(courses, c))
		tx.Write(cwOpen(c), 0)
		enr := tx.Read("enrollments")
		for s := 0; s < cwStudents; s++ {
			if id := cwID(s, c); explore.SetHas(enr, id) {
				enr = explore.SetRemove(enr, id)
				tx.Write(cwRow(id), 0)
			}
		}
		tx.Write("enrollments", enr)
	}}
}

// cwEnroll enrolls student s in course c if the course exists, is open and
// has a free seat; it aborts otherwise. When it commits, the student is
// told "enrolled".
func cwEnroll(s, c int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("enroll(s%d,c%d)", s, c), Body: func(tx *explore.Tx) {
		// A deleted course is closed: its open field tells both.
		if tx.Read(cwOpen(c)) == 0 {
			tx.Abort()
		}
		enr := tx.Read("enrollments")
		id := cwID(s, c)
		if explore.SetHas(enr, id) {
			return
		}
		if cwCount(enr, c) >= int(tx.Read(cwCap(c))) {
			tx.Abort()
		}
		tx.Write("enrollments", explore.SetAdd(enr, id))
		tx.Write(cwRow(id), 1)
	}}
}

// cwGetEnrollments lists the enrollments of course c.
func cwGetEnrollments(c int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("enrollments(c%d)", c), Body: func(tx *explore.Tx) {
		enr := tx.Read("enrollments")
		n := cwCount(enr, c)
		if n == 0 {
			return
		}
		capacity := tx.Read(cwCap(c))
		tx.Assert(n <= int(capacity), "course %d lists %d students, over its capacity %d", c, n, capacity)
	}}
}

// cwCheck asserts over the final state.
func cwCheck(tx *explore.Tx) {
	courses := tx.Read("courses")
	enr := tx.Read("enrollments")
	for c := 0; c < cwCourses; c++ {
		n := cwCount(enr, c)
		if n == 0 {
			continue
		}
		tx.Assert(explore.SetHas(courses, c), "course %d was deleted but has %d students", c, n)
		capacity := tx.Read(cwCap(c))
		tx.Assert(n <= int(capacity), "course %d has %d students, over its capacity %d", c, n, capacity)
	}
	for c := 0; c < cwCourses; c++ {
		for s := 0; s < cwStudents; s++ {
			id := cwID(s, c)
			row := tx.Read(cwRow(id)) == 1
			if row && !explore.SetHas(enr, id) {
				tx.Assert(false, "student %d was told enrolled in course %d but is missing", s, c)
			}
			if !row && explore.SetHas(enr, id) {
				tx.Assert(false, "student %d is enrolled in course %d without a row", s, c)
			}
		}
	}
}
