package controller

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// FieldError is a drive-description error, about one field where it is
// known. Its text is one line: "file:line: invalid drive description:
// firmware.write_buffer = 100, allowed …". It wraps ErrConfig.
type FieldError struct {
	// File is the description's file ("" when the description was not
	// read from one, or the value has changed since it was read).
	File string
	// Line is the line the field is set on, or of the section it is left
	// out of (0: unknown).
	Line int
	// Path is the field's dotted YAML path ("" when the error is about
	// the file as a whole).
	Path string
	// Msg says what is wrong and what is allowed.
	Msg string
	// Err is the error found by the package that checked the field (a
	// nand.ErrConfig for the NAND section), if any.
	Err error
}

// Error is "file:line: invalid drive description: msg".
func (e *FieldError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	b.WriteString(ErrConfig.Error() + ": " + e.Msg)
	return b.String()
}

// Unwrap returns ErrConfig, and Err when set.
func (e *FieldError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrConfig, e.Err}
	}
	return []error{ErrConfig}
}

// origin is where a description was read from: its file and the place of
// each field set, so that errors found later name the file and line.
type origin struct {
	file   string
	places map[string]place
	loaded Config // as read: a value that differs has not come from the file
}

type place struct {
	file string
	line int
}

// fieldErr returns the error msg about the field at path, placed in the
// file the description was read from.
func (c *Config) fieldErr(path, format string, args ...any) error {
	e := &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
	c.place(e)
	return e
}

// errAt is fieldErr for the field ptr points at.
func (c *Config) errAt(ptr any, format string, args ...any) error {
	return c.fieldErr(c.FieldPath(ptr), format, args...)
}

// place fills in e's file and line from the description's origin.
func (c *Config) place(e *FieldError) {
	o := c.origin
	if o == nil || e.File != "" {
		return
	}
	if row, ok := LookupField(e.Path); ok && !row.Section {
		now, then := row.f.Value(reflect.ValueOf(c)), row.f.Value(reflect.ValueOf(&o.loaded))
		if !reflect.DeepEqual(now.Interface(), then.Interface()) {
			return // set since: by an option, or derived
		}
	}
	e.File = o.file
	for p := e.Path; ; p = parentPath(p) {
		if pl, ok := o.places[p]; ok {
			e.File, e.Line = pl.file, pl.line
			return
		}
		if p == "" {
			return
		}
	}
}

func parentPath(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// located returns err placed in the description's file: a FieldError
// gets its file and line, a RangeError of the NAND section becomes one,
// any other error is prefixed with the file's name.
func (c *Config) located(err error) error {
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		c.place(fe)
		return err
	}
	if errors.Is(err, nand.ErrConfig) {
		// The NAND section's own checks: its paths are relative to it.
		nandPath := c.FieldPath(&c.NAND)
		msg := nandPath + "." + strings.TrimPrefix(err.Error(), nand.ErrConfig.Error()+": ")
		path, _, _ := strings.Cut(msg, " ")
		if _, ok := LookupField(path); !ok {
			path = nandPath
		}
		e := &FieldError{Path: path, Msg: msg, Err: err}
		c.place(e)
		return e
	}
	if c.origin != nil && errors.Is(err, ErrConfig) {
		return fmt.Errorf("%s: %w", c.origin.file, err)
	}
	return err
}

// ftlError names an ftl.FieldError's field as the description does: the
// field the table pairs with it (firmware.gc_low_water for GCLowWater),
// placed in the file, with what the capacity depends on for UserUnits.
// Other errors are wrapped in ErrConfig.
func (c *Config) ftlError(err error) error {
	var fe *ftl.FieldError
	if !errors.As(err, &fe) {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	why := fe.Why
	for _, row := range table.rows {
		if row.FTL != "" {
			why = strings.ReplaceAll(why, row.FTL, row.Path)
		}
	}
	if why != "" {
		why = " (" + why + ")"
	}
	if fe.Field == "UserUnits" {
		why = strings.Replace(why, "raise the spare area", "raise "+c.FieldPath(&c.OPPercent), 1)
		return c.errAt(&c.Capacity, "user capacity = %s, allowed %s%s", fe.Value, fe.Allowed, why)
	}
	for _, row := range table.rows {
		if row.FTL == fe.Field {
			return c.fieldErr(row.Path, "%s = %s, allowed %s%s", row.Path, fe.Value, fe.Allowed, why)
		}
	}
	return fmt.Errorf("%w: %w", ErrConfig, err)
}
