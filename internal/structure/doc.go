// Package structure holds no code: its tests check the shape of the
// repository as a whole.
//
//   - TestLayering reads the module's packages from the go command
//     (go list -json ./...) and fails on any import that points up the
//     declared order of layers (blockio < nand < ftl < controller <
//     workload < sim < sweep < report < cli < cmd/ftlsim < examples), naming
//     the file, the line and the import.
//   - TestSizes parses every Go file and fails on a non-generated file over
//     600 lines or a function outside tests over 150 lines.
//
// Both tables (the layers, and the known offenders still being split) are
// in the test files, with the rules that place a new package.
package structure
