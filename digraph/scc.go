package digraph

// SCC returns, for every node, the id of its strongly connected component,
// and the size of each component (Tarjan's algorithm, iterative).
func (g *Graph) SCC() (comp []int32, sizes []int32) {
	n := g.N
	comp = make([]int32, n)
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	type frame struct {
		u    int32
		next int32 // position in Out of the next edge to explore
	}
	var call []frame
	counter := int32(0)
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		call = append(call, frame{int32(root), g.OutStart[root]})
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			u := f.u
			if f.next < g.OutStart[u+1] {
				v := g.Out[f.next]
				f.next++
				if index[v] < 0 {
					index[v], low[v] = counter, counter
					counter++
					stack = append(stack, v)
					onStack[v] = true
					call = append(call, frame{v, g.OutStart[v]})
				} else if onStack[v] && index[v] < low[u] {
					low[u] = index[v]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].u
				if low[u] < low[p] {
					low[p] = low[u]
				}
			}
			if low[u] == index[u] {
				id := int32(len(sizes))
				size := int32(0)
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = id
					size++
					if w == u {
						break
					}
				}
				sizes = append(sizes, size)
			}
		}
	}
	return comp, sizes
}

// PathEdges returns the ids of the edges of a shortest path from src to
// dst, or nil when there is none (an empty path when src == dst). allowed,
// when non-nil, restricts the nodes the path may visit besides src.
func (s *Searcher) PathEdges(src, dst int32, allowed func(int32) bool) []int32 {
	defer s.reset()
	if src == dst {
		return []int32{}
	}
	s.visit(src, -1)
	for i := 0; i < len(s.queue); i++ {
		w := s.queue[i]
		for j := s.g.OutStart[w]; j < s.g.OutStart[w+1]; j++ {
			v := s.g.Out[j]
			if s.parent[v] != -2 || (allowed != nil && !allowed(v)) {
				continue
			}
			s.visit(v, w)
			s.via[v] = s.g.OutID[j]
			if v == dst {
				var ids []int32
				for x := v; x != src; x = s.parent[x] {
					ids = append(ids, s.via[x])
				}
				for a, b := 0, len(ids)-1; a < b; a, b = a+1, b-1 {
					ids[a], ids[b] = ids[b], ids[a]
				}
				return ids
			}
		}
	}
	return nil
}
