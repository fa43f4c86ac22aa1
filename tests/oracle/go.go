// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The oracle's Go program (tests/cli/oracle.sh): goroutines, closures, sort
// with a callback, an interface's methods.  go [ROUNDS]
package main

import (
	"os"
	"sort"
	"strconv"
	"sync"
)

type shape interface{ area(i uint64) uint64 }
type square struct{}
type tri struct{}

func (square) area(i uint64) uint64 { return i*i + 1 }
func (tri) area(i uint64) uint64    { return i*(i+1)/2 + 3 }

//go:noinline
func shapes(s []shape, n uint64) uint64 {
	var sum uint64
	for i := uint64(0); i < n; i++ {
		sum += s[i%uint64(len(s))].area(i)
	}
	return sum
}

//go:noinline
func sortKeys(n int) uint64 {
	v := make([]uint64, n)
	for i := range v {
		v[i] = uint64(i) * 2654435761 % 100003
	}
	sort.Slice(v, func(a, b int) bool { return v[a] < v[b] })
	return v[n/2]
}

var sink uint64

func main() {
	rounds := 20
	if len(os.Args) > 1 {
		rounds, _ = strconv.Atoi(os.Args[1])
	}
	s := []shape{square{}, tri{}}
	var mu sync.Mutex
	for r := 0; r < rounds; r++ {
		var wg sync.WaitGroup
		for g := 0; g < 2; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x := sortKeys(40000) + shapes(s, 1000000)
				mu.Lock()
				sink += x
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
}
