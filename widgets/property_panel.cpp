#include "property_panel.hpp"

#include <cmath>
#include <optional>
#include <set>

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "sailor/core/error.hpp"
#include "sailor/scenario/availability.hpp"

namespace sailor::studio {

namespace {

const Relation kRelations[] = {Relation::SameZone, Relation::SameRegion, Relation::SameContinent,
                               Relation::CrossContinent};

QString q(const std::string& s) {
  return QString::fromStdString(s);
}
QString num(double v) {
  return QString::number(v, 'g', 10);
}

std::optional<double> parseNumber(const QString& text) {
  const QString t = text.trimmed();
  bool ok = false;
  double v = QLocale().toDouble(t, &ok);
  if (!ok) v = QLocale::c().toDouble(t, &ok);
  if (!ok || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int> parseInt(const QString& text) {
  const QString t = text.trimmed();
  bool ok = false;
  int v = QLocale().toInt(t, &ok);
  if (!ok) v = QLocale::c().toInt(t, &ok);
  if (!ok) return std::nullopt;
  return v;
}

QLabel* makeErrorLabel(const QString& key) {
  auto* l = new QLabel;
  l->setObjectName(key + QStringLiteral(".error"));
  l->setWordWrap(true);
  l->setStyleSheet(QStringLiteral("color: #c62828;"));
  l->setVisible(false);
  return l;
}

// Bandwidth (GB/s) and latency (s) of a link model as the form shows them: a SAILOR fit shows its
// cap and no latency.
double shownGbPerS(const LinkModel& m) {
  return m.kind == LinkModel::Kind::LatencyBandwidth ? m.bytes_per_s / 1e9
                                                     : m.max_bytes_per_s / 1e9;
}
double shownLatency(const LinkModel& m) {
  return m.kind == LinkModel::Kind::LatencyBandwidth ? m.latency_s : 0.0;
}

// A field's editor with its error label under it, as one form row's widget.
QWidget* withErrorLabel(QWidget* editor, QLabel* error) {
  auto* box = new QWidget;
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(2);
  v->addWidget(editor);
  v->addWidget(error);
  return box;
}

}  // namespace

PropertyPanel::PropertyPanel(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent), doc_(document) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 8);
  title_ = new QLabel(this);
  QFont f = title_->font();
  f.setBold(true);
  f.setPointSizeF(f.pointSizeF() * 1.15);
  title_->setFont(f);
  title_->setWordWrap(true);
  layout->addWidget(title_);
  scroll_ = new QScrollArea(this);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layout->addWidget(scroll_, 1);
  setMinimumWidth(300);
  connect(doc_, &ScenarioDocument::changed, this, &PropertyPanel::onDocumentChanged);
  rebuild();
}

PropertyPanel::~PropertyPanel() {
  // Editors losing focus while they are destroyed must not apply anything.
  rebuilding_ = true;
  for (Field& f : fields_) f.editor->disconnect(this);
}

void PropertyPanel::setReadOnly(bool read_only) {
  read_only_ = read_only;
  for (Field& f : fields_) f.editor->setEnabled(!read_only_);
}

QWidget* PropertyPanel::field(const QString& key) const {
  const Field* f = findField(key);
  return f ? f->editor : nullptr;
}

QLabel* PropertyPanel::errorLabel(const QString& key) const {
  const Field* f = findField(key);
  return f ? f->error_label : nullptr;
}

PropertyPanel::Field* PropertyPanel::findField(const QString& key) {
  for (Field& f : fields_)
    if (f.key == key) return &f;
  return nullptr;
}

const PropertyPanel::Field* PropertyPanel::findField(const QString& key) const {
  for (const Field& f : fields_)
    if (f.key == key) return &f;
  return nullptr;
}

void PropertyPanel::setSelection(const Selection& selection) {
  Selection s = selection;
  if (s.kind == Selection::None) s = {Selection::Scenario, -1, q(doc_->scenario().name)};
  const bool same_item = s.kind == selection_.kind && s.index == selection_.index;
  selection_ = s;
  if (same_item && selectionExists() && form_widget_) {
    // The same item, perhaps renamed: keep the form (and whatever is being typed in it).
    refreshValues(true);
    return;
  }
  rebuild();
}

bool PropertyPanel::selectionExists() const {
  const Scenario& sc = doc_->scenario();
  switch (selection_.kind) {
    case Selection::Region:
      return selection_.index >= 0 && selection_.index < static_cast<int>(sc.regions.size());
    case Selection::Zone: return sc.hasZone(selection_.name.toStdString());
    case Selection::Pool:
      return selection_.index >= 0 && selection_.index < static_cast<int>(sc.pools.size());
    case Selection::Link:
      return selection_.index >= 0 && selection_.index < static_cast<int>(sc.links.size());
    default: return true;
  }
}

void PropertyPanel::onDocumentChanged() {
  if (rebuilding_) return;
  if (!selectionExists()) {
    selection_ = {Selection::Scenario, -1, q(doc_->scenario().name)};
    rebuild();
    return;
  }
  bool busy = committing_;
  for (const Field& f : fields_) busy |= isBusy(f);
  if (busy) {
    refreshValues(true);
    return;
  }
  // A change of pool figures alone (an undone count, a price set elsewhere) leaves every form
  // but a zone's (which lists its pools in a line of text) as it was built, but for the values
  // of its fields: those are refreshed, and the form is not built again (a new form is laid
  // out and painted in full).
  if (selection_.kind != Selection::Zone && built_ &&
      ScenarioDocument::poolFigureChanges(*built_, doc_->scenario()))
    refreshValues(false);
  else rebuild();
}

QString PropertyPanel::editorText(const Field& f) const {
  if (auto* e = qobject_cast<QLineEdit*>(f.editor)) return e->text();
  if (auto* c = qobject_cast<QComboBox*>(f.editor)) return c->currentText();
  if (auto* b = qobject_cast<QCheckBox*>(f.editor))
    return b->isChecked() ? QStringLiteral("1") : QStringLiteral("0");
  if (auto* p = qobject_cast<QPlainTextEdit*>(f.editor)) return p->toPlainText();
  return {};
}

bool PropertyPanel::isBusy(const Field& f) const {
  // Only typed text is kept: combo boxes and check boxes always show the document's value.
  const bool typed = qobject_cast<QLineEdit*>(f.editor) || qobject_cast<QPlainTextEdit*>(f.editor);
  return typed && (!f.error.isEmpty() || editorText(f) != f.shown);
}

void PropertyPanel::updateTitle() {
  const Scenario& sc = doc_->scenario();
  switch (selection_.kind) {
    case Selection::Region:
      title_->setText(
          tr("Region: %1").arg(q(sc.regions[static_cast<size_t>(selection_.index)].name)));
      break;
    case Selection::Zone: title_->setText(tr("Zone: %1").arg(selection_.name)); break;
    case Selection::Pool: {
      const Pool& p = sc.pools[static_cast<size_t>(selection_.index)];
      title_->setText(tr("Pool: %1 in %2").arg(q(p.gpu_type), q(p.zone)));
      break;
    }
    case Selection::Link: {
      const LinkEntry& l = sc.links[static_cast<size_t>(selection_.index)];
      title_->setText(tr("Link: %1 ↔ %2").arg(q(l.from_zone), q(l.to_zone)));
      break;
    }
    default: title_->setText(tr("Scenario: %1").arg(q(sc.name))); break;
  }
}

void PropertyPanel::setEditorText(Field& f, const QString& text) {
  f.shown = text;
  const QSignalBlocker block(f.editor);
  if (auto* e = qobject_cast<QLineEdit*>(f.editor)) {
    e->setText(text);
    e->setCursorPosition(0);
    if (f.placeholder) e->setPlaceholderText(f.placeholder());
  } else if (auto* c = qobject_cast<QComboBox*>(f.editor)) {
    c->setCurrentText(text);
  } else if (auto* b = qobject_cast<QCheckBox*>(f.editor)) {
    b->setChecked(text == QStringLiteral("1"));
  } else if (auto* p = qobject_cast<QPlainTextEdit*>(f.editor)) {
    p->setPlainText(text);
  }
}

void PropertyPanel::refreshValues(bool skip_busy) {
  for (Field& f : fields_) {
    if (skip_busy && isBusy(f)) continue;
    setEditorText(f, f.value());
    if (!f.error.isEmpty()) showFieldError(f, {});
  }
  updateTitle();
}

void PropertyPanel::showFieldError(Field& field, const QString& message) {
  field.error = message;
  QStringList messages;
  for (const Field& f : fields_)
    if (f.error_label == field.error_label && !f.error.isEmpty()) messages << f.error;
  field.error_label->setText(messages.join(QLatin1Char('\n')));
  field.error_label->setVisible(!messages.isEmpty());
  if (auto* e = qobject_cast<QLineEdit*>(field.editor))
    e->setStyleSheet(
        message.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 1px solid #c62828; }"));
}

void PropertyPanel::commitField(Field& field, const QString& text) {
  if (rebuilding_ || read_only_) return;
  if (text == field.value()) {
    showFieldError(field, {});
    return;
  }
  const QString key = field.key;
  committing_ = true;
  const EditResult r = field.apply(text);
  committing_ = false;
  // The document may have changed and the form been refreshed: find the field again.
  Field* f = findField(key);
  if (!f) return;
  if (r.ok()) {
    showFieldError(*f, {});
    setEditorText(*f, f->value());  // normalised (e.g. "2.50" -> "2.5")
  } else {
    // Typed text stays as the user wrote it; a choice (combo box, check box) goes back to the
    // document's value, with the reason shown below it.
    if (!qobject_cast<QLineEdit*>(f->editor) && !qobject_cast<QPlainTextEdit*>(f->editor))
      setEditorText(*f, f->value());
    showFieldError(*f, r.message);
    emit editRejected(key, r.message);
  }
}

bool PropertyPanel::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::FocusOut)
    if (auto* p = qobject_cast<QPlainTextEdit*>(watched))
      for (Field& f : fields_)
        if (f.editor == p) {
          commitField(f, p->toPlainText());
          break;
        }
  return QWidget::eventFilter(watched, event);
}

// ---------------------------------------------------------------------------------------------
// Building the form

QWidget* PropertyPanel::addLineField(QFormLayout* form, const QString& label, const QString& key,
                                     std::function<QString()> value,
                                     std::function<EditResult(const QString&)> apply,
                                     const QString& tooltip) {
  auto* edit = new QLineEdit;
  edit->setObjectName(key);
  edit->setToolTip(tooltip);
  QLabel* error = makeErrorLabel(key);
  form->addRow(label, withErrorLabel(edit, error));
  fields_.emplace_back(key, edit, error, std::move(value), std::move(apply));
  setEditorText(fields_.back(), fields_.back().value());
  connect(edit, &QLineEdit::editingFinished, this, [this, key, edit] {
    if (Field* fld = findField(key)) commitField(*fld, edit->text());
  });
  return edit;
}

QCheckBox* PropertyPanel::addCheckField(QFormLayout* form, const QString& row_label,
                                        const QString& text, const QString& key,
                                        std::function<bool()> value,
                                        std::function<EditResult(bool)> apply,
                                        const QString& tooltip) {
  auto* check = new QCheckBox(text);
  check->setObjectName(key);
  check->setToolTip(tooltip);
  QLabel* error = makeErrorLabel(key);
  form->addRow(row_label, withErrorLabel(check, error));
  fields_.emplace_back(
      key, check, error,
      [value = std::move(value)] { return value() ? QStringLiteral("1") : QStringLiteral("0"); },
      [apply = std::move(apply)](const QString& t) { return apply(t == QStringLiteral("1")); });
  setEditorText(fields_.back(), fields_.back().value());
  connect(check, &QCheckBox::toggled, this, [this, key, check] {
    if (Field* fld = findField(key))
      commitField(*fld, check->isChecked() ? QStringLiteral("1") : QStringLiteral("0"));
  });
  return check;
}

// How a pool is paid for: spot (with its preemption rate, typed or from a trace), owned (the
// team's own GPUs, its amortisation shown), and whether planning uses it at all.
void PropertyPanel::buildPoolPricing(QFormLayout* form, int index) {
  auto pool = [this, index] { return doc_->scenario().pools[static_cast<size_t>(index)]; };
  addCheckField(
      form, tr("Pricing"), tr("Spot (preemptible)"), QStringLiteral("pool.spot"),
      [pool] { return pool().spot; },
      [this, pool, index](bool on) {
        Pool e = pool();
        e.spot = on;
        if (on) {  // an owned pool is never spot
          e.owned = false;
          e.amortisation.reset();
        } else {  // a rate only on a spot pool
          e.preemptions_per_gpu_hour.reset();
          e.preemptions_source.reset();
        }
        return doc_->editPool(index, e);
      },
      tr("Preemptible GPUs at the spot price"));
  addCheckField(
      form, QString(), tr("Owned (our own GPUs)"), QStringLiteral("pool.owned"),
      [pool] { return pool().owned; },
      [this, pool, index](bool on) {
        Pool e = pool();
        e.owned = on;
        if (on) {
          e.spot = false;
          e.preemptions_per_gpu_hour.reset();
          e.preemptions_source.reset();
        } else {
          e.amortisation.reset();
        }
        return doc_->editPool(index, e);
      },
      tr("The team's own GPUs beside rented ones: never preempted, priced at their amortised "
         "$/GPU-hour (0 for none)"));
  addCheckField(
      form, tr("Planning"), tr("Use in planning"), QStringLiteral("pool.enabled"),
      [pool] { return pool().enabled; },
      [this, pool, index](bool on) {
        Pool e = pool();
        e.enabled = on;
        return doc_->editPool(index, e);
      },
      tr("Unchecked: the pool stays in the scenario but plans leave it out (compare offers "
         "without copying files)"));
  addLineField(
      form, tr("Preemptions / GPU-hour"), QStringLiteral("pool.preemptions"),
      [pool] {
        const auto r = pool().preemptions_per_gpu_hour;
        return r ? num(*r) : QString();
      },
      [this, pool, index](const QString& t) -> EditResult {
        Pool e = pool();
        if (t.trimmed().isEmpty()) {
          e.preemptions_per_gpu_hour.reset();
        } else {
          const auto v = parseNumber(t);
          if (!v)
            return {
                QStringLiteral("preemptions_per_gpu_hour"),
                tr("Enter preemptions per GPU-hour from 0 to 1, or nothing (got \"%1\")").arg(t)};
          e.preemptions_per_gpu_hour = *v;
        }
        e.preemptions_source.reset();  // typed in
        return doc_->editPool(index, e);
      },
      tr("Spot pools: how often a GPU is taken away, which the whole run prices in; empty: not "
         "priced in"));
  fields_.back().placeholder = [this] { return tr("not priced in"); };
  setEditorText(fields_.back(), fields_.back().value());
  const Pool p = pool();
  auto* from_trace = new QPushButton(tr("Rate from trace…"));
  from_trace->setObjectName(QStringLiteral("pool.preemptionsFromTrace"));
  from_trace->setToolTip(
      tr("Read the rate from an availability trace (SAILOR's CSV or JSON): "
         "GPUs taken away over GPU-hours held"));
  from_trace->setEnabled(!read_only_);
  connect(from_trace, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Availability trace"), QString(),
                                                      tr("Traces (*.csv *.json);;All files (*)"));
    if (!path.isEmpty()) setPreemptionsFromTrace(path);
  });
  form->addRow(QString(), from_trace);
  if (p.preemptions_source) addInfo(form, tr("Rate source"), q(*p.preemptions_source));
  if (const auto& a = p.amortisation)
    addInfo(form, tr("Amortised"),
            tr("%1 USD a GPU over %2 years + %3 USD/GPU-hour running = %4 USD/GPU-hour")
                .arg(num(a->purchase_usd_per_gpu), num(a->lifetime_years),
                     num(a->running_usd_per_gpu_hour), num(a->usdPerGpuHour())));
}

EditResult PropertyPanel::setPreemptionsFromTrace(const QString& path) {
  const QString key = QStringLiteral("pool.preemptions");
  Field* field = findField(key);
  if (selection_.kind != Selection::Pool || !field)
    return {QStringLiteral("pool"), tr("Select a spot pool first")};
  Pool e = doc_->scenario().pools[static_cast<size_t>(selection_.index)];
  EditResult r;
  if (!e.spot) {
    r = {QStringLiteral("spot"), tr("Make the pool spot first: a preemption rate is a spot "
                                    "pool's")};
    showFieldError(*field, r.message);
    emit editRejected(key, r.message);
    return r;
  }
  try {
    const TracePreemptions t = preemptionsInTrace(QFile::encodeName(path).toStdString(), e.gpu_type,
                                                  e.zone, doc_->catalog());
    e.preemptions_per_gpu_hour = t.perGpuHour();
    e.preemptions_source = t.describe();
    r = doc_->editPool(selection_.index, e);
  } catch (const InputError& err) {
    r = {q(err.field()),
         tr("%1: got %2, expected %3").arg(q(err.field()), q(err.value()), q(err.expected()))};
  }
  if (!r.ok()) {
    if ((field = findField(key))) showFieldError(*field, r.message);
    emit editRejected(key, r.message);
  }
  return r;
}

QLabel* PropertyPanel::addInfo(QFormLayout* form, const QString& label, const QString& text) {
  auto* l = new QLabel(text);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  form->addRow(label, l);
  return l;
}

void PropertyPanel::rebuild() {
  rebuilding_ = true;
  built_ = doc_->snapshot();
  for (Field& f : fields_) f.editor->disconnect(this);
  fields_.clear();
  if (form_widget_) {
    // Not deleted here: rebuild() may run inside a signal of one of the form's editors (a check
    // box's toggled(), through the document's changed()).
    scroll_->takeWidget();
    form_widget_->hide();
    form_widget_->deleteLater();
    form_widget_ = nullptr;
  }
  if (!selectionExists()) selection_ = {Selection::Scenario, -1, q(doc_->scenario().name)};

  form_widget_ = new QWidget;
  auto* outer = new QVBoxLayout(form_widget_);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* form = new QFormLayout;
  outer->addLayout(form);
  outer->addStretch(1);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::DontWrapRows);
  form->setLabelAlignment(Qt::AlignLeft);
  switch (selection_.kind) {
    case Selection::Region: buildRegion(form); break;
    case Selection::Zone: buildZone(form); break;
    case Selection::Pool: buildPool(form); break;
    case Selection::Link: buildLink(form); break;
    default: buildScenario(form); break;
  }
  scroll_->setWidget(form_widget_);
  for (Field& f : fields_) f.editor->setEnabled(!read_only_);
  rebuilding_ = false;
}

void PropertyPanel::buildScenario(QFormLayout* form) {
  const Scenario& sc = doc_->scenario();
  updateTitle();
  addLineField(
      form, tr("Name"), QStringLiteral("scenario.name"),
      [this] { return q(doc_->scenario().name); },
      [this](const QString& t) { return doc_->setName(t); });

  {
    const QString key = QStringLiteral("scenario.description");
    auto* box = new QWidget;
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    auto* edit = new QPlainTextEdit;
    edit->setObjectName(key);
    edit->setMaximumHeight(90);
    edit->setToolTip(tr("Applied when the field loses focus"));
    edit->installEventFilter(this);
    QLabel* error = makeErrorLabel(key);
    v->addWidget(edit);
    v->addWidget(error);
    form->addRow(tr("Description"), box);
    fields_.emplace_back(
        key, edit, error, [this] { return q(doc_->scenario().description); },
        [this](const QString& t) { return doc_->setDescription(t); });
    setEditorText(fields_.back(), fields_.back().value());
  }

  auto* heading = new QLabel(
      tr("<b>Defaults by relation</b><br>For zone pairs without a declared link: bandwidth "
         "(GB/s), latency (s) and egress ($/GB)."));
  heading->setWordWrap(true);
  form->addRow(heading);
  // One grid row per relation (label, bandwidth, latency, egress), its error label below it.
  auto* grid_box = new QWidget;
  auto* grid = new QGridLayout(grid_box);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setHorizontalSpacing(6);
  grid->setVerticalSpacing(2);
  grid->setColumnStretch(1, 1);
  grid->setColumnStretch(2, 1);
  grid->setColumnStretch(3, 1);
  {
    int col = 1;
    for (const QString& h : {tr("GB/s"), tr("latency (s)"), tr("$/GB")}) {
      auto* l = new QLabel(h);
      l->setStyleSheet(QStringLiteral("color: #5f6775;"));
      grid->addWidget(l, 0, col++);
    }
  }
  form->addRow(grid_box);
  int grid_row = 1;
  for (Relation rel : kRelations) {
    const QString rel_key = QString::fromLatin1(relationName(rel));
    QLabel* error = makeErrorLabel(QStringLiteral("default.") + rel_key);

    auto model = [this, rel] { return doc_->scenario().default_links.at(rel); };
    struct Part {
      QString name, tip;
      std::function<QString()> value;
      std::function<EditResult(const QString&)> apply;
    };
    const QString label = ScenarioDocument::relationLabel(rel);
    const std::vector<Part> parts = {
        {QStringLiteral("bandwidth"), tr("Bandwidth between nodes, %1 (GB/s)").arg(label),
         [model] { return num(shownGbPerS(model())); },
         [this, model, rel](const QString& t) -> EditResult {
           const auto gb = parseNumber(t);
           if (!gb)
             return {QStringLiteral("bandwidth"), tr("Enter a number in GB/s (got \"%1\")").arg(t)};
           return doc_->setDefaultLink(rel, *gb, shownLatency(model()));
         }},
        {QStringLiteral("latency"), tr("Latency, %1 (seconds)").arg(label),
         [model] { return num(shownLatency(model())); },
         [this, model, rel](const QString& t) -> EditResult {
           const auto s = parseNumber(t);
           if (!s)
             return {QStringLiteral("latency"),
                     tr("Enter a number in seconds (got \"%1\")").arg(t)};
           return doc_->setDefaultLink(rel, shownGbPerS(model()), *s);
         }},
        {QStringLiteral("egress"), tr("Egress price, %1 ($/GB)").arg(label),
         [this, rel] { return num(doc_->scenario().default_egress_usd_per_gb.at(rel)); },
         [this, rel](const QString& t) -> EditResult {
           const auto usd = parseNumber(t);
           if (!usd)
             return {QStringLiteral("egress"), tr("Enter a number in $/GB (got \"%1\")").arg(t)};
           return doc_->setDefaultEgress(rel, *usd);
         }},
    };
    for (const Part& p : parts) {
      const QString key = QStringLiteral("default.%1.%2").arg(rel_key, p.name);
      auto* edit = new QLineEdit;
      edit->setObjectName(key);
      edit->setToolTip(p.tip);
      edit->setMinimumWidth(40);
      grid->addWidget(edit, grid_row, static_cast<int>(&p - parts.data()) + 1);
      fields_.emplace_back(key, edit, error, p.value, p.apply);
      setEditorText(fields_.back(), fields_.back().value());
      connect(edit, &QLineEdit::editingFinished, this, [this, key, edit] {
        if (Field* fld = findField(key)) commitField(*fld, edit->text());
      });
    }
    QString row_label = label;
    if (!row_label.isEmpty()) row_label[0] = row_label[0].toUpper();
    grid->addWidget(new QLabel(row_label), grid_row, 0);
    grid->addWidget(error, grid_row + 1, 0, 1, 4);
    grid_row += 2;
  }

  // Egress prices of pairs without a declared link are not drawn on the map: list them here.
  QStringList unlinked;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [pair, v] : sc.egress_usd_per_gb) {
    const auto key = std::minmax(pair.first, pair.second);
    if (!seen.insert({key.first, key.second}).second) continue;
    bool linked = false;
    for (const auto& l : sc.links) linked |= std::minmax(l.from_zone, l.to_zone) == key;
    if (!linked) unlinked << tr("%1 ↔ %2: $%3/GB").arg(q(pair.first), q(pair.second), num(v));
  }
  if (!unlinked.isEmpty())
    addInfo(form, tr("Other egress prices"), unlinked.join(QLatin1Char('\n')));
}

void PropertyPanel::buildRegion(QFormLayout* form) {
  const int index = selection_.index;
  const Region& r = doc_->scenario().regions[static_cast<size_t>(index)];
  updateTitle();
  addLineField(
      form, tr("Name"), QStringLiteral("region.name"),
      [this, index] { return q(doc_->scenario().regions[static_cast<size_t>(index)].name); },
      [this, index](const QString& t) { return doc_->renameRegion(index, t); });
  auto* continent = static_cast<QLineEdit*>(addLineField(
      form, tr("Continent"), QStringLiteral("region.continent"),
      [this, index] { return q(doc_->scenario().regions[static_cast<size_t>(index)].continent); },
      [this, index](const QString& t) { return doc_->setRegionContinent(index, t); },
      tr("Zones on the same continent use the same-continent defaults; others the "
         "across-continents ones")));
  QStringList continents;
  for (const auto& other : doc_->scenario().regions)
    if (!continents.contains(q(other.continent))) continents << q(other.continent);
  for (const char* c : {"north-america", "south-america", "europe", "asia", "oceania", "africa"})
    if (!continents.contains(QLatin1String(c))) continents << QLatin1String(c);
  continent->setCompleter(new QCompleter(continents, continent));
  QStringList zones;
  for (const auto& z : r.zones) zones << q(z);
  addInfo(form, tr("Zones"), zones.join(QStringLiteral(", ")));
  auto* hint = new QLabel(tr("Deleting a region deletes its zones with their pools and links."));
  hint->setWordWrap(true);
  hint->setStyleSheet(QStringLiteral("color: #5f6775;"));
  form->addRow(hint);
}

void PropertyPanel::buildZone(QFormLayout* form) {
  const Scenario& sc = doc_->scenario();
  const QString zone = selection_.name;
  const Region& r = sc.regionOf(zone.toStdString());
  updateTitle();
  addLineField(
      form, tr("Name"), QStringLiteral("zone.name"), [this] { return selection_.name; },
      [this](const QString& t) {
        // The selection follows the rename before the document announces it.
        const QString old = selection_.name;
        selection_.name = t.trimmed();
        const EditResult res = doc_->renameZone(old, t);
        if (!res.ok()) selection_.name = old;
        return res;
      },
      tr("Renaming updates the zone's pools, links and egress prices"));
  addInfo(form, tr("Region"), tr("%1 (%2)").arg(q(r.name), q(r.continent)));
  QStringList pools;
  int gpus = 0;
  for (const auto& p : sc.pools)
    if (q(p.zone) == zone) {
      pools << tr("%1× %2%3").arg(p.count).arg(q(p.gpu_type), p.spot ? tr(" (spot)") : QString());
      gpus += p.count;
    }
  addInfo(form, tr("Pools"),
          pools.isEmpty()
              ? tr("none")
              : tr("%1 (%n GPU(s))", nullptr, gpus).arg(pools.join(QStringLiteral(", "))));
  QStringList links;
  for (const auto& l : sc.links)
    if (q(l.from_zone) == zone || q(l.to_zone) == zone)
      links << q(q(l.from_zone) == zone ? l.to_zone : l.from_zone);
  addInfo(form, tr("Links to"), links.isEmpty() ? tr("none") : links.join(QStringLiteral(", ")));
  auto* hint = new QLabel(tr("Deleting a zone deletes its pools, links and egress prices."));
  hint->setWordWrap(true);
  hint->setStyleSheet(QStringLiteral("color: #5f6775;"));
  form->addRow(hint);
}

void PropertyPanel::buildPool(QFormLayout* form) {
  const int index = selection_.index;
  auto pool = [this, index] { return doc_->scenario().pools[static_cast<size_t>(index)]; };
  updateTitle();

  auto add_combo = [&](const QString& label, const QString& key, const QStringList& items,
                       std::function<QString()> value,
                       std::function<EditResult(const QString&)> apply) {
    auto* combo = new QComboBox;
    combo->setObjectName(key);
    combo->addItems(items);
    QLabel* error = makeErrorLabel(key);
    form->addRow(label, withErrorLabel(combo, error));
    fields_.emplace_back(key, combo, error, std::move(value), std::move(apply));
    setEditorText(fields_.back(), fields_.back().value());
    connect(combo, &QComboBox::activated, this, [this, key, combo] {
      if (Field* fld = findField(key)) commitField(*fld, combo->currentText());
    });
    return combo;
  };

  add_combo(
      tr("Zone"), QStringLiteral("pool.zone"), doc_->zoneNames(), [pool] { return q(pool().zone); },
      [this, pool, index](const QString& t) {
        Pool e = pool();
        e.zone = t.toStdString();
        return doc_->editPool(index, e);
      });
  QStringList gpus;
  for (const auto& g : doc_->catalog().gpus()) gpus << q(g.name);
  auto* gpu_combo = add_combo(
      tr("GPU type"), QStringLiteral("pool.gpu_type"), gpus, [pool] { return q(pool().gpu_type); },
      [this, pool, index](const QString& t) {
        Pool e = pool();
        e.gpu_type = t.toStdString();
        return doc_->editPool(index, e);
      });
  for (int i = 0; i < gpu_combo->count(); ++i)
    if (const GpuType* g = doc_->catalog().findGpu(gpu_combo->itemText(i).toStdString()))
      gpu_combo->setItemData(i,
                             tr("%1, %2 GB, %3 GPUs per node")
                                 .arg(q(g->full_name))
                                 .arg(static_cast<double>(g->memory_bytes) / 1e9, 0, 'f', 0)
                                 .arg(g->gpus_per_node),
                             Qt::ToolTipRole);

  addLineField(
      form, tr("GPUs"), QStringLiteral("pool.count"),
      [pool] { return QString::number(pool().count); },
      [this, pool, index](const QString& t) -> EditResult {
        const auto v = parseInt(t);
        if (!v)
          return {QStringLiteral("count"), tr("Enter a whole number of GPUs (got \"%1\")").arg(t)};
        Pool e = pool();
        e.count = *v;
        return doc_->editPool(index, e);
      },
      tr("GPUs of this type available in the zone"));
  addLineField(
      form, tr("$/GPU-hour"), QStringLiteral("pool.price"),
      [pool] { return num(pool().usd_per_gpu_hour); },
      [this, pool, index](const QString& t) -> EditResult {
        const auto v = parseNumber(t);
        if (!v)
          return {QStringLiteral("usd_per_gpu_hour"),
                  tr("Enter a price in $/GPU-hour (got \"%1\")").arg(t)};
        Pool e = pool();
        e.usd_per_gpu_hour = *v;
        return doc_->editPool(index, e);
      },
      tr("Price per GPU per hour, US dollars"));

  buildPoolPricing(form, index);

  addLineField(
      form, tr("GPUs per node"), QStringLiteral("pool.gpus_per_node"),
      [pool] {
        const auto n = pool().gpus_per_node;
        return n ? QString::number(*n) : QString();
      },
      [this, pool, index](const QString& t) -> EditResult {
        Pool e = pool();
        if (t.trimmed().isEmpty()) {
          e.gpus_per_node.reset();
        } else {
          const auto v = parseInt(t);
          if (!v)
            return {QStringLiteral("gpus_per_node"),
                    tr("Enter a whole number of GPUs per node, or nothing for the catalogue's "
                       "(got \"%1\")")
                        .arg(t)};
          e.gpus_per_node = *v;
        }
        return doc_->editPool(index, e);
      },
      tr("Empty: the GPU type's usual node size from the catalogue"));
  fields_.back().placeholder = [this, pool] {
    const GpuType* g = doc_->catalog().findGpu(pool().gpu_type);
    return g ? tr("catalogue: %1").arg(g->gpus_per_node) : tr("catalogue default");
  };
  setEditorText(fields_.back(), fields_.back().value());
  buildPoolNetwork(form, index);
}

// The pool's instance family (its GPU type's catalogue networks) and the figure of the link
// between two of its nodes, with where that figure comes from (Scenario::link).
void PropertyPanel::buildPoolNetwork(QFormLayout* form, int index) {
  auto pool = [this, index] { return doc_->scenario().pools[static_cast<size_t>(index)]; };
  const Pool p = pool();
  const GpuType* g = doc_->catalog().findGpu(p.gpu_type);
  if (!g) return;
  if (!g->networks.empty()) {
    const QString key = QStringLiteral("pool.instance");
    auto* combo = new QComboBox;
    combo->setObjectName(key);
    // "default": the type's default family (no `instance` in the scenario's pool).
    const QString default_name = QStringLiteral("default");
    combo->addItem(default_name);
    combo->setItemData(0,
                       tr("The GPU type's default: %1").arg(q(g->nodeNetworks().front().instance)),
                       Qt::ToolTipRole);
    for (const NodeNetwork& n : g->networks) {
      combo->addItem(q(n.instance));
      combo->setItemData(combo->count() - 1,
                         tr("%1, %2 GPUs per node, %3 Gb/s per node")
                             .arg(q(n.cloud))
                             .arg(n.gpus_per_node)
                             .arg(n.gbit_per_s),
                         Qt::ToolTipRole);
    }
    QLabel* error = makeErrorLabel(key);
    form->addRow(tr("Instance"), withErrorLabel(combo, error));
    fields_.emplace_back(
        key, combo, error,
        [pool, default_name] { return pool().instance ? q(*pool().instance) : default_name; },
        [this, pool, index, default_name](const QString& t) {
          Pool e = pool();
          if (t == default_name) e.instance.reset();
          else e.instance = t.toStdString();
          return doc_->editPool(index, e);
        });
    setEditorText(fields_.back(), fields_.back().value());
    connect(combo, &QComboBox::activated, this, [this, key, combo] {
      if (Field* fld = findField(key)) commitField(*fld, combo->currentText());
    });
  }
  const Scenario& sc = doc_->scenario();
  const int gpn = sc.gpusPerNode(p.zone, p.gpu_type, doc_->catalog());
  const ResolvedLink l = sc.link({p.zone, p.gpu_type, p.zone, p.gpu_type, gpn});
  QString text =
      l.model.kind == LinkModel::Kind::LatencyBandwidth
          ? tr("%1 GB/s per node, %2 us latency")
                .arg(num(l.bandwidthBytesPerS(1e12) / 1e9), num(l.model.latency_s * 1e6))
          : tr("%1 GB/s per node at 64 MB (SAILOR fit)").arg(num(l.bandwidthBytesPerS(64e6) / 1e9));
  text += QLatin1Char('\n') +
          tr("source: %1 (%2)").arg(QLatin1String(linkSourceName(l.origin)), q(l.source));
  if (l.origin == LinkSource::Catalogue)
    if (auto h = sc.hardwareLink(p.zone, p.gpu_type)) text += QLatin1Char('\n') + q(h->source);
  addInfo(form, tr("Between nodes"), text)->setObjectName(QStringLiteral("pool.nodeLink"));
}

void PropertyPanel::buildLink(QFormLayout* form) {
  const int index = selection_.index;
  auto link = [this, index] { return doc_->scenario().links[static_cast<size_t>(index)]; };
  const LinkEntry l = link();
  const Scenario& sc = doc_->scenario();
  const Relation rel = sc.relation(l.from_zone, l.to_zone);
  updateTitle();
  addInfo(
      form, tr("Zones"),
      tr("%1 ↔ %2 (%3)").arg(q(l.from_zone), q(l.to_zone), ScenarioDocument::relationLabel(rel)));
  if (l.from_gpu || l.gpus)
    addInfo(form, tr("Applies to"),
            tr("%1 → %2%3")
                .arg(q(l.from_gpu.value_or("*")), q(l.to_gpu.value_or("*")),
                     l.gpus ? tr(", %n GPU(s) per node sending", nullptr, *l.gpus) : QString()));
  if (l.model.kind == LinkModel::Kind::SailorFit) {
    auto* note =
        addInfo(form, tr("Model"),
                tr("SAILOR fit (imported): %1·x² + %2·x + %3 GB/s with x = log2(MB), cap %4 GB/s. "
                   "Changing bandwidth or latency replaces it with a latency + bandwidth model.")
                    .arg(num(l.model.coefficients[0]), num(l.model.coefficients[1]),
                         num(l.model.coefficients[2]), num(l.model.max_bytes_per_s / 1e9)));
    note->setStyleSheet(QStringLiteral("color: #5f6775;"));
  }
  addLineField(
      form, tr("Bandwidth (GB/s)"), QStringLiteral("link.bandwidth"),
      [link] { return num(shownGbPerS(link().model)); },
      [this, link, index](const QString& t) -> EditResult {
        const auto v = parseNumber(t);
        if (!v)
          return {QStringLiteral("bandwidth_gb_per_s"),
                  tr("Enter a number in GB/s (got \"%1\")").arg(t)};
        return doc_->editLink(index, *v, shownLatency(link().model));
      },
      tr("Aggregate bandwidth between two nodes of these zones, one direction"));
  addLineField(
      form, tr("Latency (s)"), QStringLiteral("link.latency"),
      [link] { return num(shownLatency(link().model)); },
      [this, link, index](const QString& t) -> EditResult {
        const auto v = parseNumber(t);
        if (!v)
          return {QStringLiteral("latency_s"), tr("Enter a number in seconds (got \"%1\")").arg(t)};
        return doc_->editLink(index, shownGbPerS(link().model), *v);
      },
      tr("One-way latency in seconds (e.g. 0.03 for 30 ms)"));
  auto* egress = static_cast<QLineEdit*>(addLineField(
      form, tr("Egress ($/GB)"), QStringLiteral("link.egress"),
      [this, link] {
        const LinkEntry e = link();
        const auto v = doc_->pairEgress(q(e.from_zone), q(e.to_zone));
        return v ? num(*v) : QString();
      },
      [this, link](const QString& t) -> EditResult {
        const LinkEntry e = link();
        if (t.trimmed().isEmpty())
          return doc_->setPairEgress(q(e.from_zone), q(e.to_zone), std::nullopt);
        const auto v = parseNumber(t);
        if (!v)
          return {QStringLiteral("usd_per_gb"), tr("Enter a price in $/GB (got \"%1\")").arg(t)};
        return doc_->setPairEgress(q(e.from_zone), q(e.to_zone), *v);
      },
      tr("Egress price between these zones, both directions; empty: the default for their "
         "relation")));
  egress->setPlaceholderText(
      tr("default: %1 (%2)")
          .arg(num(sc.default_egress_usd_per_gb.at(rel)), ScenarioDocument::relationLabel(rel)));
}

}  // namespace sailor::studio
