package client

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCredentialsNeverThroughALink: with the credentials file in a folder
// another user could write, links planted at the old fixed temporary name
// and at the file itself carry nothing anywhere: the file is written anew
// (mode 0600), the links' targets stay untouched, and nothing else is
// left in the folder; Forget does the same.
func TestCredentialsNeverThroughALink(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "brokers.json")
	t.Setenv("ECSINSPECT_CREDENTIALS", path)
	victimTmp, victimFile := filepath.Join(dir, "victim-tmp"), filepath.Join(dir, "victim-file")
	if err := os.Symlink(victimTmp, path+".tmp"); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Symlink(victimFile, path); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveCredentials("127.0.0.1:4222", SavedCredentials{User: "ui", Password: "secret-pw", Token: "secret-token"}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, v := range []string{victimTmp, victimFile} {
			if _, err := os.Lstat(v); !os.IsNotExist(err) {
				t.Fatalf("%s: the link's target %s was written (%v)", when, v, err)
			}
		}
		st, err := os.Lstat(path)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: the credentials file: %v %v", when, st.Mode(), err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 { // the file, and the planted .tmp link
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("%s: the folder holds %v", when, names)
		}
	}
	check("saved")
	all, err := readCredentials(path)
	if err != nil || all["127.0.0.1:4222"].Password != "secret-pw" {
		t.Fatalf("read back: %+v %v", all, err)
	}
	if err := ForgetCredentials("127.0.0.1:4222"); err != nil {
		t.Fatal(err)
	}
	check("forgotten")
	if all, err := readCredentials(path); err != nil || len(all) != 0 {
		t.Fatalf("after Forget: %+v %v", all, err)
	}
}
