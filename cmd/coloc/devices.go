package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/spf13/cobra"
)

func newDevicesCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the GPUs and the counters coloc can sample on this machine",
		Long: `Lists what 'coloc profile run' will sample here: every GPU that NVML finds
(index, normalized type, name, memory, architecture, compute capability,
driver and CUDA versions, whether it offers GPM metrics) and the counters
each one offers, then the host counters read from /proc, which are always
there.

Without an NVIDIA driver (no libnvidia-ml.so.1) it says so and lists the host
counters only: profiling still works, with CPU time and memory per workload.
A counter a GPU does not support is read as empty (null) on it; one no GPU
supports is not recorded at all.

The type column is the name used for device_type in every dataset table
(NVIDIA H200 -> h200, Tesla V100-SXM2-16GB -> v100).`,
		Example: `  coloc devices
  coloc devices --json | jq -r '.gpu.devices[].type'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			found := sampler.Detect(e.openGPU(), sampler.DetectOptions{})
			defer found.Close()
			if asJSON {
				return writeDevicesJSON(e.stdout, found)
			}
			return writeDevicesText(e.stdout, found)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (for scripts) instead of text")
	return cmd
}

// counterJSON is one counter in the JSON listing.
type counterJSON struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	Doc  string `json:"doc"`
}

func countersJSON(cs []datasets.Counter) []counterJSON {
	out := make([]counterJSON, len(cs))
	for i, c := range cs {
		out[i] = counterJSON{c.Name, c.Unit, sampler.CounterDoc(c.Name)}
	}
	return out
}

// devicesJSON is the --json document (its layout is versioned by Version).
type devicesJSON struct {
	Version int `json:"version"`
	GPU     struct {
		Available bool           `json:"available"`
		Reason    string         `json:"reason,omitempty"`
		System    sampler.System `json:"system"`
		Devices   []deviceJSON   `json:"devices"`
	} `json:"gpu"`
	Host struct {
		Available bool          `json:"available"`
		Counters  []counterJSON `json:"counters"`
	} `json:"host"`
	Warnings []string `json:"warnings"`
}

type deviceJSON struct {
	sampler.Device
	Counters []counterJSON `json:"counters"`
}

func writeDevicesJSON(w io.Writer, found *sampler.Detection) error {
	var doc devicesJSON
	doc.Version = 1
	doc.GPU.Available = found.GPU != nil
	doc.GPU.Reason = found.GPUReason
	doc.GPU.System = found.System
	doc.GPU.Devices = []deviceJSON{}
	for _, d := range found.Devices {
		doc.GPU.Devices = append(doc.GPU.Devices, deviceJSON{Device: d, Counters: countersJSON(d.Counters)})
	}
	doc.Host.Available = found.Host != nil
	doc.Host.Counters = []counterJSON{}
	if found.Host != nil {
		doc.Host.Counters = countersJSON(found.Host.Counters())
	}
	doc.Warnings = append([]string{}, found.Warnings...)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func writeDevicesText(w io.Writer, found *sampler.Detection) error {
	if found.GPU == nil {
		fmt.Fprintf(w, "GPUs: none. %s.\nGPU counters will not be recorded; host counters will.\n", found.GPUReason)
	} else {
		s := found.System
		fmt.Fprintf(w, "GPUs: %d (driver %s, CUDA %s, NVML %s)\n", len(found.Devices), s.Driver, s.CUDADriver, s.NVML)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  INDEX\tTYPE\tNAME\tMEMORY\tARCH\tCC\tGPM\tUUID")
		for _, d := range found.Devices {
			gpm := "no"
			if d.GPM {
				gpm = "yes"
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%.1f GiB\t%s\t%s\t%s\t%s\n", d.Index, d.Type, d.Name,
				float64(d.MemoryTotal)/(1<<30), d.Architecture, d.ComputeCapability, gpm, d.UUID)
		}
		tw.Flush()
		fmt.Fprintln(w, "\nGPU counters (and the devices that offer them):")
		writeGPUCounters(w, found)
		for _, d := range found.Devices {
			if len(d.Unsupported) > 0 {
				fmt.Fprintf(w, "Device %d does not support: %s\n", d.Index, strings.Join(d.Unsupported, ", "))
			}
		}
	}
	fmt.Fprintln(w)
	if found.Host == nil {
		fmt.Fprintln(w, "Host counters: none (/proc cannot be read).")
	} else {
		fmt.Fprintln(w, "Host counters (/proc), per workload, always recorded:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range found.Host.Counters() {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Name, c.Unit, sampler.CounterDoc(c.Name))
		}
		tw.Flush()
	}
	if len(found.Warnings) > 0 && found.GPU != nil {
		fmt.Fprintln(w)
		for _, msg := range found.Warnings {
			fmt.Fprintln(w, "warning:", msg)
		}
	}
	return nil
}

// writeGPUCounters lists each counter of the NVML sampler with the devices
// that offer it ("all" when every device does).
func writeGPUCounters(w io.Writer, found *sampler.Detection) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range found.GPU.Counters() {
		var on []string
		for _, d := range found.Devices {
			for _, dc := range d.Counters {
				if dc.Name == c.Name {
					on = append(on, fmt.Sprint(d.Index))
					break
				}
			}
		}
		devs := strings.Join(on, ",")
		if len(on) == len(found.Devices) {
			devs = "all"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Name, c.Unit, devs, sampler.CounterDoc(c.Name))
	}
	tw.Flush()
}
