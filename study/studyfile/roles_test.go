package studyfile

import (
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

const rolesStudy = `name = "roles"
runs = 1
[factors]
page = "pageA"
rtt = ["20ms", "100ms"]
protocol = ["https", "h2"]
[[matrix]]
role = "calibration"
[[matrix]]
role = "validation"
rtt = "60ms"
`

// TestMatrixBlocksDeclareRoles: a block's role reaches each of its
// conditions, moves no hash (the same file without roles gives the same
// conditions), and the store keeps it with the study.
func TestMatrixBlocksDeclareRoles(t *testing.T) {
	s, err := Parse([]byte(rolesStudy), "")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Parse([]byte(strings.ReplaceAll(strings.ReplaceAll(rolesStudy, "role = \"calibration\"\n", ""), "role = \"validation\"\n", "")), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 6 || len(plain.Conditions) != 6 {
		t.Fatalf("%d and %d conditions, want 6 (3 RTTs x 2 protocols)", len(s.Conditions), len(plain.Conditions))
	}
	for i, c := range s.Conditions {
		want := spec.RoleCalibration
		if c.Values["rtt"] == "60ms" {
			want = spec.RoleValidation
		}
		if c.Role != want {
			t.Errorf("%s: role %q, want %q", c.Describe(), c.Role, want)
		}
		if c.Hash != plain.Conditions[i].Hash || plain.Conditions[i].Role != "" {
			t.Errorf("%s: declaring a role changed the hash or the plain file has one", c.Describe())
		}
	}
	dir := t.TempDir()
	st, err := store.CreateStore(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := st.Study()
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range back.Conditions {
		if c.Role != s.Conditions[i].Role {
			t.Errorf("stored %s: role %q, want %q", c.Describe(), c.Role, s.Conditions[i].Role)
		}
	}
	if !back.HasRoles() || plain.HasRoles() {
		t.Error("HasRoles does not tell the two files apart")
	}
}

func TestRolesRefusedWithTheLine(t *testing.T) {
	for label, c := range map[string]struct{ edit, want string }{
		"bad value":    {`role = "held-out"`, `line 10: role "held-out": want one of calibration, validation`},
		"not a string": {`role = 3`, "line 10: role = 3: want a string"},
		"two sets":     {"role = \"validation\"\nrtt = \"20ms\"", "[[matrix]] block 2: condition page=pageA protocol=https rtt=20ms is declared validation here and calibration in an earlier block"},
	} {
		src := strings.Replace(rolesStudy, "role = \"validation\"\nrtt = \"60ms\"", c.edit, 1)
		_, err := Parse([]byte(src), "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", label, err, c.want)
		}
	}
}
