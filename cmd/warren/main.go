// Command warren is a terminal workbench for analysts who research documents with a human in
// the loop, on local Ollama models.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}
