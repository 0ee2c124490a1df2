package profile

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/strictnum"
	"github.com/coloc-dev/coloc/model"
)

// ReadPairList reads a pair list (written by 'coloc profile next') as
// model.ReadPairList does, after two checks of its own: the path is a
// regular file, and the version in the header is a plain decimal.
// model's reader scans the header with fmt.Sscanf, which reads 1_000 as
// 1000 and the 1 of 1e999 as 1.
func ReadPairList(path string) ([][2]string, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	head, _ := bufio.NewReaderSize(f, 4096).ReadString('\n')
	f.Close()
	fields := strings.Fields(head)
	if len(fields) == 3 && fields[0] == "#" && fields[1] == model.PairListFormat && !strictnum.IsInteger(fields[2]) {
		return nil, fmt.Errorf("%s:1: pair list version %q is not a whole number", path, fields[2])
	}
	return model.ReadPairList(path)
}
