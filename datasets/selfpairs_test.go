package datasets

import (
	"strings"
	"testing"
)

func TestImportCSVSelfPairs(t *testing.T) {
	in := `workload,partner,device_type,degree,solo_throughput,colocated_throughput
a,a,rtx3090,1,100,40
a,b,rtx3090,1,100,70
a,a,rtx3090,1,100,50
b,a,rtx3090,1,80,60
`
	tb, err := ImportCSV(strings.NewReader(in), "pairs.csv", KindPairs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PairsFrom(tb)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 3 {
		t.Fatalf("%d rows, want 3 (the self pair's two rows merged)", len(p.Rows))
	}
	self := p.Rows[0]
	if self.Workload != "a" || self.Partner != "a" || self.Colocated != 45 || self.Normalized != 0.45 || self.DeviceType != "rtx3090" {
		t.Errorf("self pair %+v, want a|a on rtx3090 with the mean of 40 and 50", self)
	}
	dup := `workload,partner,device_type,degree,solo_throughput,colocated_throughput
a,b,v100,1,100,70
b,a,v100,1,100,70
a,b,v100,1,100,60
`
	_, err = ImportCSV(strings.NewReader(dup), "dup.csv", KindPairs)
	if err == nil || !strings.Contains(err.Error(), "dup.csv:4:") || !strings.Contains(err.Error(), "first at line 2") {
		t.Errorf("duplicate: %v, want a problem at line 4 naming line 2", err)
	}
}
