package draw

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

func TestZZSeed(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("ZZSEED"))
	rng := rand.New(rand.NewPCG(uint64(seed), 24))
	g := randomGraph(rng)
	f, _ := os.Create("/tmp/pg/seed.svg")
	defer f.Close()
	g.WriteSVG(f)
	f2, _ := os.Create("/tmp/pg/seed.png")
	defer f2.Close()
	g.WritePNG(f2)
}
