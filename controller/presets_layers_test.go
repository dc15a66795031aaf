package controller_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// valueAt returns the value of the field at a dotted YAML path of c, as
// text.
func valueAt(t *testing.T, c *controller.Config, path string) string {
	t.Helper()
	v := reflect.ValueOf(c).Elem()
	for _, name := range strings.Split(path, ".") {
		found := false
		for i := range v.NumField() {
			tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
			if tag == name {
				v, found = v.Field(i), true
				break
			}
		}
		require.True(t, found, "no field %s", path)
	}
	return fmt.Sprint(v.Interface())
}

// built is a resolved preset and the layers it was built on.
type built struct {
	name, chip, part string
	cfg              controller.Config
}

// disagreement returns the first controller or part field on which two
// of the drives built on the same controller (or part) differ, as an
// error ("" when they agree), and the groups it compared. The channel
// rate is the part's capped by the controller's (an ONFI 2 part on an
// asynchronous controller runs slower), so drives on one part and
// different controllers may differ in it: it is compared per controller.
func disagreement(t *testing.T, drives []built) (string, map[string]int) {
	type seen struct{ value, drive string }
	groups := map[string]map[string]seen{}
	counts := map[string]int{}
	for _, d := range drives {
		for _, f := range controller.Fields() {
			if f.Section || (f.Layer != controller.LayerController && f.Layer != controller.LayerPart) {
				continue
			}
			key := "controller " + d.chip
			if f.Layer == controller.LayerPart {
				key = "part " + d.part
				if f.Path == "nand.timing.bus_mbps" {
					key += " on " + d.chip
				}
			}
			if groups[key] == nil {
				groups[key] = map[string]seen{}
			}
			got := valueAt(t, &d.cfg, f.Path)
			if s, ok := groups[key][f.Path]; ok && s.value != got {
				return fmt.Sprintf("%s: %s is %s on %s but %s on %s: a %s value must be one for every drive on it",
					key, f.Path, s.value, s.drive, got, d.name, f.Layer), counts
			} else if !ok {
				groups[key][f.Path] = seen{got, d.name}
			}
			counts[key]++
		}
	}
	return "", counts
}

// TestDrivesOnOneControllerAgree: every drive built on one controller
// has the same value of every controller field, and every drive built on
// one NAND part the same value of every part field, read from the drives
// as resolved (what the simulator builds), not from the files; and the
// check finds a drive that differs.
func TestDrivesOnOneControllerAgree(t *testing.T) {
	var drives []built
	for _, ln := range controller.Lines() {
		l, err := controller.LoadLine(ln)
		require.NoError(t, err)
		_, err = controller.Chip(l.Controller)
		require.NoError(t, err, "%s names controller %q", ln, l.Controller)
		for _, v := range l.Variants {
			c, err := controller.Preset(v.Name)
			require.NoError(t, err)
			r, err := c.Resolve()
			require.NoError(t, err, v.Name)
			drives = append(drives, built{v.Name, l.Controller, l.NAND, r.Config})
		}
	}
	msg, counts := disagreement(t, drives)
	require.Empty(t, msg)
	// The controllers the issue names, each with drives on it.
	for _, c := range []string{"sf-2281", "88ss9174", "ps3108", "pc29as21"} {
		require.Positive(t, counts["controller "+c], c)
	}
	require.Len(t, groupsOf(counts, "controller "), len(controller.Chips()), "every controller preset has a drive")
	// A drive whose controller value differs is found, and named.
	for i, d := range drives {
		if d.chip == "88ss9174" && strings.HasPrefix(d.name, "intel-510") {
			drives[i].cfg.Firmware.ECCBits++
			break
		}
	}
	msg, _ = disagreement(t, drives)
	require.Contains(t, msg, "controller 88ss9174: firmware.ecc_bits is 24 on")
	require.Contains(t, msg, "but 25 on intel-510")
}

func groupsOf[V any](m map[string]V, prefix string) []string {
	var out []string
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

// TestLineValuesComeFromTheirLayers: a preset holds its controller
// file's value of every controller field and its line's value of every
// firmware field.
func TestLineValuesComeFromTheirLayers(t *testing.T) {
	for _, ln := range controller.Lines() {
		l, err := controller.LoadLine(ln)
		require.NoError(t, err)
		chip, err := controller.Chip(l.Controller)
		require.NoError(t, err)
		for _, v := range l.Variants {
			c, err := controller.Preset(v.Name)
			require.NoError(t, err)
			from := controller.Config{Host: chip.Host, Firmware: chip.Firmware, Power: chip.Power}
			line := controller.Config{Host: l.Host, Firmware: l.Firmware, Power: l.Power}
			for _, f := range controller.Fields() {
				if f.Section || !(strings.HasPrefix(f.Path, "host.") || strings.HasPrefix(f.Path, "firmware.") || strings.HasPrefix(f.Path, "power.")) {
					continue
				}
				switch f.Layer {
				case controller.LayerController:
					require.Equal(t, valueAt(t, &from, f.Path), valueAt(t, &c, f.Path), "%s: %s", v.Name, f.Path)
				case controller.LayerFirmware, controller.LayerBoard:
					require.Equal(t, valueAt(t, &line, f.Path), valueAt(t, &c, f.Path), "%s: %s", v.Name, f.Path)
				}
			}
			require.LessOrEqual(t, c.NAND.Geometry.Channels, chip.Channels, v.Name)
		}
	}
}
