package main

import (
	"reflect"
	"strings"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/fields"
)

// A fitted parameter is named here by the firmware field it sets, never by
// typing its name: its YAML name, its value's text and what its zero
// means all come from the table of drive-description fields.

// descFields is the table of drive-description fields, built once from
// the description's types and never changed.
var descFields = fields.MustOf(reflect.TypeFor[controller.Config]())

// firmwarePrefix is the path of the firmware section, read from the table.
var firmwarePrefix = func() string {
	var c controller.Config
	p := c.FieldPath(&c.Firmware.GCStreams)
	return p[:strings.LastIndex(p, ".")+1]
}()

// fw is the YAML name, within the firmware section, of the field ptr
// picks.
func fw(ptr func(*controller.Firmware) any) string {
	var c controller.Config
	return strings.TrimPrefix(c.FieldPath(ptr(&c.Firmware)), firmwarePrefix)
}

// The firmware fields the calibration fits.
var (
	gcStreams     = fw(func(f *controller.Firmware) any { return &f.GCStreams })
	gcPacePercent = fw(func(f *controller.Firmware) any { return &f.GCPacePercent })
	gcRestoreTo   = fw(func(f *controller.Firmware) any { return &f.GCRestoreTo })
	compressOut   = fw(func(f *controller.Firmware) any { return &f.CompressOutMBps })
	trimBacklog   = fw(func(f *controller.Firmware) any { return &f.TrimBacklog })
	readCommand   = fw(func(f *controller.Firmware) any { return &f.ReadCommandNs })
	writeCommand  = fw(func(f *controller.Firmware) any { return &f.WriteCommandNs })
	datapathWrite = fw(func(f *controller.Firmware) any { return &f.DatapathWriteMBps })
	stripeWork    = fw(func(f *controller.Firmware) any { return &f.StripeNs })
	mapMiss       = fw(func(f *controller.Firmware) any { return &f.MapMissNs })
	raiseStripe   = fw(func(f *controller.Firmware) any { return &f.RaiseStripe })
)

// firmwareField is the row of the firmware field named param.
func firmwareField(param string) (fields.Field, bool) {
	return descFields.Lookup(firmwarePrefix + param)
}

// fieldText is the value of field f in cfg as a description holds it,
// with its unit where it is a rate, and what a zero means where the
// table says.
func fieldText(cfg *controller.Config, f fields.Field) string {
	v := f.Value(reflect.ValueOf(cfg))
	if v.IsZero() && f.Default != "" {
		if rest, ok := strings.CutPrefix(f.Default, "0 means "); ok {
			return rest + " (default)"
		}
		return "0 (" + strings.TrimPrefix(strings.TrimPrefix(f.Default, "0: "), "0 ") + ")"
	}
	s := fields.Text(v)
	if f.Unit == "MB/s" {
		s += " " + f.Unit
	}
	return s
}

// resetField returns the firmware field named param to its zero value,
// which means its default; false when no such field exists.
func resetField(cfg *controller.Config, param string) bool {
	f, ok := firmwareField(param)
	if !ok {
		return false
	}
	v := f.Value(reflect.ValueOf(cfg))
	v.Set(reflect.Zero(v.Type()))
	return true
}
