// Command hello is the start-up limit of the A/B harness (bench/ab):
// a Go hello-world built the way reelier is.
package main

import "os"

func main() { os.Stdout.WriteString("hello, world\n") }
