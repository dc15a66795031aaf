// Command fielddoc writes the reference table of drive-description
// fields (controller.FieldReference) to a file: go generate in package
// controller runs it to write docs/drive-fields.md.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/atomicfile"
)

func main() {
	out := flag.String("o", "", "the file to write")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "fielddoc: -o FILE is required")
		os.Exit(2)
	}
	if err := write(*out, controller.FieldReference()); err != nil {
		fmt.Fprintln(os.Stderr, "fielddoc:", err)
		os.Exit(1)
	}
}

// write writes b to file whole or not at all.
func write(file string, b []byte) error {
	f, err := atomicfile.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return err
	}
	return f.Commit()
}
