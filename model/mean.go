package model

// mean predicts the mean normalized throughput of the slot.
type mean struct {
	framed
	SlotMean []float64 `json:"slot_mean"`
}

// newMean returns the mean baseline.
func newMean() *mean { return &mean{} }

// Name implements Model.
func (m *mean) Name() string { return "mean" }

// Fit implements Model.
func (m *mean) Fit(t *Train) error {
	m.f = t.Frame
	m.SlotMean = slotMeans(t.Obs, len(t.Slots))
	return nil
}

// Predict implements Model.
func (m *mean) Predict(a, b, s int) float64 { return m.SlotMean[s] }
