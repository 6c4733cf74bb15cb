<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>FindBar</name>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n match</numerusform>
            <numerusform>%n matches</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n replaced</source>
        <translation>
            <numerusform>%n replaced</numerusform>
            <numerusform>%n replaced</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>HistoryList</name>
    <message numerus="yes">
        <source>%n page(s)</source>
        <translation>
            <numerusform>%n page</numerusform>
            <numerusform>%n pages</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LogPane</name>
    <message numerus="yes">
        <source>%n error(s)</source>
        <translation>
            <numerusform>%n error</numerusform>
            <numerusform>%n errors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n warning</numerusform>
            <numerusform>%n warnings</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ReviewPane</name>
    <message numerus="yes">
        <source>%n compile error(s): the preview shows the last good PDF</source>
        <translation>
            <numerusform>%n compile error: the preview shows the last good PDF</numerusform>
            <numerusform>%n compile errors: the preview shows the last good PDF</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RunHeader</name>
    <message numerus="yes">
        <source>%n hidden</source>
        <translation>
            <numerusform>%n hidden</numerusform>
            <numerusform>%n hidden</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n too large to read</source>
        <translation>
            <numerusform>%n too large to read</numerusform>
            <numerusform>%n too large to read</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n skipped</source>
        <translation>
            <numerusform>%n skipped</numerusform>
            <numerusform>%n skipped</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Timeline</name>
    <message numerus="yes">
        <source>%n character(s)</source>
        <translation>
            <numerusform>%n character</numerusform>
            <numerusform>%n characters</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n file</numerusform>
            <numerusform>%n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) read</source>
        <translation>
            <numerusform>%n file read</numerusform>
            <numerusform>%n files read</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n model call(s)</source>
        <translation>
            <numerusform>%n model call</numerusform>
            <numerusform>%n model calls</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n figure(s)</source>
        <translation>
            <numerusform>%n figure</numerusform>
            <numerusform>%n figures</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n requirement(s)</source>
        <translation>
            <numerusform>%n requirement</numerusform>
            <numerusform>%n requirements</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not yet met</source>
        <translation>
            <numerusform>%n not yet met</numerusform>
            <numerusform>%n not yet met</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n number(s) not found in the material</source>
        <translation>
            <numerusform>%n number not found in the material</numerusform>
            <numerusform>%n numbers not found in the material</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n reference(s)</source>
        <translation>
            <numerusform>%n reference</numerusform>
            <numerusform>%n references</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n citation(s) unresolved</source>
        <translation>
            <numerusform>%n citation unresolved</numerusform>
            <numerusform>%n citations unresolved</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n fix round(s)</source>
        <translation>
            <numerusform>%n fix round</numerusform>
            <numerusform>%n fix rounds</numerusform>
        </translation>
    </message>
</context>
</TS>
