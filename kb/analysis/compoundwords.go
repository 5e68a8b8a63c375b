package analysis

// compoundWords are the words splitCompound knows as parts of German compounds: nouns and
// the stems of verbs and adjectives that German joins into the compounds of hazardous
// substances, occupational safety, environmental law and administration. Written for warren;
// each may also appear whole or inflected. Short words that end many unrelated words
// ("ung", "heit") and prefixes ("ver", "be") are deliberately absent: a part must be a word.
const compoundWords = `
stoff gefahrstoff gemisch gas gase dampf staub rauch nebel aerosol flüssigkeit feststoff lösung
säure lauge salz metall öl fett wasser luft sauerstoff stickstoff wasserstoff kohlenstoff kohle
chlor fluor schwefel phosphor arsen silizium blei quecksilber chrom nickel zink kupfer eisen stahl
holz papier kunststoff glas gummi farbe lack kleber klebstoff reiniger reinigung mittel lösemittel
brennstoff kraftstoff treibstoff treibgas heizöl benzin diesel erdgas flüssiggas propan butan
methan ammoniak chemikalie produkt erzeugnis zubereitung verbindung element teilchen partikel
faser asbest quarz mineral abgas edelgas inertgas druckgas gift giftstoff schadstoff zusatz
zusatzstoff ausgangsstoff rohstoff wirkstoff sprengstoff explosivstoff biozid pflanzenschutz

siede schmelz flamm flamme zünd zündung temperatur druck dichte masse gewicht volumen menge
konzentration gehalt wert grenze grenz grenzwert richtwert bereich stufe klasse kategorie gruppe
art form geruch löslichkeit viskosität explosion brand feuer hitze wärme kälte energie leistung
strom spannung strahlung licht lärm schall schwingung geschwindigkeit zeit dauer punkt
oberfläche fläche höhe tiefe breite länge abstand

gefahr gefährdung risiko schutz sicherheit vorsicht vorsorge gesundheit krankheit schaden
schädigung verletzung unfall vergiftung wirkung reizung verätzung atem atmung haut auge hand
kopf körper lunge organ blut nerv krebs erbgut fortpflanzung mutter kind jugend frau mensch
person personal beschäftigte arbeitnehmer arbeitgeber unternehmer betreiber hersteller händler
lieferant verwender anwender nutzer verbraucher fachkraft arzt behörde amt aufsicht ministerium
land bund staat gemeinde kommission ausschuss gericht verwaltung polizei feuerwehr rettung
notfall alarm flucht weg ausgang tür tor fenster raum halle gebäude haus keller lager lagerung
anlage betrieb werk fabrik labor werkstatt baustelle stelle platz arbeitsplatz ort stätte
arbeitsstätte zone gebiet umgebung umwelt natur boden grundwasser gewässer see fluss meer abfall
abwasser abluft zuluft lüftung absaugung emission immission ausbreitung freisetzung austritt
leck leckage störung störfall ereignis zwischenfall nachbarschaft bevölkerung tier pflanze

maske handschuh schuh kleidung brille helm gehör ausrüstung gerät maschine apparat instrument
werkzeug fahrzeug behälter gefäß flasche dose kanister fass tank kessel rohr leitung schlauch
ventil armatur pumpe motor filter sensor melder warnung warn zeichen kennzeichen schild etikett
symbol piktogramm signal hinweis satz absatz nummer anhang teil abschnitt kapitel artikel
paragraph verzeichnis liste tabelle blatt daten datenblatt information angabe auskunft dokument
dokumentation unterlage bericht nachweis bescheinigung zeugnis prüfung prüf test messung mess
kontrolle überwachung untersuchung beurteilung bewertung ermittlung analyse probe verfahren
methode technik regel vorschrift norm standard richtlinie gesetz verordnung ordnung recht pflicht
verbot erlaubnis genehmigung zulassung anzeige meldung mitteilung anmeldung registrierung
einstufung kennzeichnung verpackung beförderung transport versand handel verkehr straße schiene
bahn schiff hafen lieferung abgabe einfuhr ausfuhr herstellung verarbeitung verwendung
anwendung gebrauch umgang tätigkeit arbeit aufgabe maßnahme planung plan programm konzept
organisation unterweisung schulung ausbildung kenntnis fach kunde sachkunde qualifikation
erfahrung stand zustand ursache folge maß verhältnis beschaffenheit eigenschaft merkmal
kriterium bedingung voraussetzung anforderung bestimmung festlegung regelung ausnahme übergang
frist termin kosten gebühr strafe bußgeld geld widrigkeit straftat haftung verantwortung
zuständigkeit sorgfalt entsorgung beseitigung verwertung sanierung stilllegung errichtung
änderung bau lösch löschmittel kühl heiz misch brenn spreng wasch trage anweisung weisung
zufahrt einrichtung vorrichtung sicherung versorgung entnahme aufbewahrung hilfe unterricht
`
