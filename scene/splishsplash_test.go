package scene

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const corpus = "../../shared/splishsplash/Scenes"

func corpusFiles(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join(corpus, "*.json"))
	if len(files) == 0 {
		t.Skip("../shared/splishsplash is absent (it is beside the repository in CI); skipping the corpus test")
	}
	return files
}

// ImportStatus is one corpus file's import result, for the docs table.
func importStatus(path string) (status string, particles int, detail string) {
	sc, warns, err := ImportSPlisHSPlasH(path)
	if err != nil {
		var ue *UnsupportedError
		if errors.As(err, &ue) {
			return "unsupported", 0, ue.Error()
		}
		return "error", 0, err.Error()
	}
	w, err := sc.Build(1)
	if err != nil {
		return "error", 0, err.Error()
	}
	defer w.Close()
	for _, b := range w.Bodies() {
		if b.Body.Phase.String() == "fluid" {
			particles += b.Particles.Len()
		}
	}
	return "runs", particles, fmt.Sprintf("%d warnings", len(warns))
}

func TestCorpusImports(t *testing.T) {
	// Every reference scene either imports (and, for the small ones, runs a few frames) or
	// fails with an error naming the unsupported key; none fails any other way.
	files := corpusFiles(t)
	runs := 0
	for _, f := range files {
		name := filepath.Base(f)
		sc, warns, err := ImportSPlisHSPlasH(f)
		if err != nil {
			var ue *UnsupportedError
			if !errors.As(err, &ue) || ue.Path == "" {
				t.Errorf("%s: failed without naming an unsupported key: %v", name, err)
			}
			continue
		}
		for _, w := range warns {
			if w.Path == "" || w.Msg == "" {
				t.Errorf("%s: empty warning %+v", name, w)
			}
		}
		w, err := sc.Build(0)
		if err != nil {
			t.Errorf("%s: imported but does not build: %v", name, err)
			continue
		}
		n := 0
		for _, b := range w.Bodies() {
			if b.Body.Phase.String() == "fluid" {
				n += b.Particles.Len()
			}
		}
		if n <= 30000 {
			for i := 0; i < 3; i++ {
				if _, err := w.Step(1.0 / 60); err != nil {
					t.Errorf("%s: frame %d: %v", name, i, err)
					break
				}
			}
		}
		w.Close()
		runs++
	}
	if runs == 0 {
		t.Fatal("no corpus scene imports")
	}
}

func TestDamBreakModelImport(t *testing.T) {
	corpusFiles(t)
	// The reference's block rule fixes the count: a 1 m cube at r = 0.025 gives 19³ = 6859.
	const want = 6859
	sc, warns, err := ImportSPlisHSPlasH(filepath.Join(corpus, "DamBreakModel.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n := w.Bodies()[len(w.Bodies())-1].Particles.Len(); n != want {
		t.Fatalf("%d fluid particles, want %d", n, want)
	}
	if sc.Solver.MaxError != 0.0005 || sc.Fluids[0].Material.Viscosity != 0.01 {
		t.Fatalf("DFSPH maxError 0.05 %% → η %g, viscosity %g", sc.Solver.MaxError, sc.Fluids[0].Material.Viscosity)
	}
	joined := fmt.Sprint(warns)
	for _, k := range []string{"simulationMethod", "boundaryHandlingMethod", "numberOfStepsPerRenderUpdate", "maxErrorV"} {
		if !strings.Contains(joined, k) {
			t.Errorf("no warning names %s: %v", k, warns)
		}
	}
	for i := 0; i < 5; i++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		if st.Particles != want || len(st.Removed) > 0 {
			t.Fatalf("frame %d: %d particles, removed %v", i, st.Particles, st.Removed)
		}
	}
}

func TestMisspeltKeyIsReported(t *testing.T) {
	corpusFiles(t)
	// The reference silently ignores DeformableModel.json's "imteStepSize"; sluice names it.
	_, warns, err := ImportSPlisHSPlasH(filepath.Join(corpus, "DeformableModel.json"))
	found := strings.Contains(fmt.Sprint(warns), "imteStepSize")
	if !found {
		t.Fatalf("imteStepSize not reported (err %v, warnings %v)", err, warns)
	}
}

func TestWriteCorpusStatus(t *testing.T) {
	// Regenerates docs/splishsplash.md when SLUICE_WRITE_DOCS is set; otherwise checks it is
	// current, so the status table in the docs is what the importer does.
	files := corpusFiles(t)
	var b strings.Builder
	b.WriteString("| scene | status | fluid particles | detail |\n| --- | --- | --- | --- |\n")
	for _, f := range files {
		st, n, d := importStatus(f)
		ns := ""
		if n > 0 {
			ns = fmt.Sprint(n)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", filepath.Base(f), st, ns, strings.ReplaceAll(d, "|", "\\|"))
	}
	table := b.String()
	doc := "../docs/splishsplash.md"
	if os.Getenv("SLUICE_WRITE_DOCS") != "" {
		head, _ := os.ReadFile(doc)
		h := string(head)
		if i := strings.Index(h, "| scene |"); i >= 0 {
			h = h[:i]
		}
		if err := os.WriteFile(doc, []byte(h+table), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	cur, err := os.ReadFile(doc)
	if err != nil || !strings.Contains(string(cur), table) {
		t.Fatalf("docs/splishsplash.md is out of date: run SLUICE_WRITE_DOCS=1 go test ./scene -run WriteCorpusStatus")
	}
}

func TestDeformableModelImportsAsElasticBody(t *testing.T) {
	corpusFiles(t)
	// DeformableModel.json: a fluid block whose material selects Peer et al. 2018 with
	// E = 250 kPa, ν = 0.33, α = 0.1 becomes one elastic box with those settings.
	sc, _, err := ImportSPlisHSPlasH(filepath.Join(corpus, "DeformableModel.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Elastic) != 1 || len(sc.Fluids) != 0 {
		t.Fatalf("%d elastic bodies and %d fluid blocks, want 1 and 0", len(sc.Elastic), len(sc.Fluids))
	}
	es := sc.Elastic[0].Material.Elastic
	if es.YoungsModulus != 250000 || es.PoissonsRatio != 0.33 || es.Alpha != 0.1 {
		t.Fatalf("elastic material %+v", es)
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 0; i < 10; i++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
}
