//go:build invariants

package controller

// With -tags invariants the controller verifies the FTL's invariants every
// invariantsEvery commands.
const checkInvariants = true
