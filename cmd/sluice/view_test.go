package main

import (
	"io"
	"strings"
	"testing"
)

func TestViewArgs(t *testing.T) {
	a, err := parseViewArgs([]string{"--frames", "3", "s.json", "--screenshot", "out/s.png", "--color", "speed", "--rate", "120"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if a.scene != "s.json" || a.frames != 3 || a.screenshot != "out/s.png" || a.color != "speed" || a.rate != 120 || a.width != 1280 || a.height != 720 || a.look != "surface" {
		t.Fatalf("parsed %+v", a)
	}
	for _, args := range [][]string{
		{"--rigid-samples", "s.json", "--frames", "3"},
		{"s.json", "--frames", "3", "--rigid-samples"},
	} {
		a, err := parseViewArgs(args, io.Discard)
		if err != nil || a.scene != "s.json" || !a.samples || a.frames != 3 {
			t.Fatalf("view %q: parsed %+v, error %v; want s.json, rigid samples, 3 frames", args, a, err)
		}
	}
	if a, err := parseViewArgs([]string{"--wall-samples", "s.json"}, io.Discard); err != nil || a.scene != "s.json" || !a.wallSamples || a.samples {
		t.Fatalf("view --wall-samples s.json: parsed %+v, error %v; want s.json and wall samples only", a, err)
	}
	if a, err := parseViewArgs([]string{"--anisotropic", "s.json"}, io.Discard); err != nil || a.scene != "s.json" || !a.anisotropic || a.wallSamples {
		t.Fatalf("view --anisotropic s.json: parsed %+v, error %v; want s.json and anisotropic only", a, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "view takes one scene file"},
		{[]string{"a.json", "b.json"}, "view takes one scene file"},
		{[]string{"--rigid-samples", "a.json", "b.json"}, "view takes one scene file"},
		{[]string{"s.json", "--frames", "-1"}, "--frames -1 must be ≥ 0"},
		{[]string{"s.json", "--screenshot", "x.png"}, "--screenshot x.png needs --frames N ≥ 1"},
		{[]string{"s.json", "--screenshot", "x.jpg", "--frames", "2"}, "--screenshot x.jpg: the file must end in .png"},
		{[]string{"s.json", "--width", "8"}, "--width 8 --height 720"},
		{[]string{"s.json", "--rate", "0"}, "--rate 0 must be a positive number"},
		{[]string{"s.json", "--color", "vorticity"}, `--color "vorticity": not one of phase, speed`},
		{[]string{"s.json", "--fps", "3"}, "flag provided but not defined: -fps"},
		{[]string{"s.json", "--look", "glass"}, `--look "glass": not one of surface, marbles`},
	} {
		if _, err := parseViewArgs(c.args, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("view %q: error %v, want %q", c.args, err, c.want)
		}
	}
}
